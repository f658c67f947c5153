// SPDX-License-Identifier: Apache-2.0
import SystemErrors

extension PCMIOLoop {
    /// Restarts capture and playback together after an xrun (`.brokenPipe`) or suspend
    /// (`.streamPipe`) of `cause`, exactly as `startAll()` started them: recovering one PCM
    /// alone would restart it a period or more out of phase with the other, and an echo
    /// canceller's alignment would silently break.
    ///
    /// A suspended PCM is first resumed as a single stream does (`snd_pcm_resume` while it
    /// answers `EAGAIN`: the device is still waking up). Then both are dropped, prepared, the
    /// playback prefilled with silence, and both started back to back. A PCM whose prepare,
    /// prefill or start fails is closed and reopened on its own (`.reopened`, or `.deviceLost`
    /// when that fails too, and the other direction runs on alone). When both run afterwards,
    /// the restart is counted in both directions' `restarts`, in `restarts` here
    /// (`ALSAStream.restartCount`), as a recovery of `cause`, and posted as `.restarted`.
    /// The capture ring keeps what it holds: its reader may be in the middle of it.
    func restartTogether(cause: PCMChannel<Calls>, fault: Errno) {
        cause.pendingRestart = nil
        guard let capture, let playback else { return }
        if fault == .streamPipe { _ = cause.resumeAfterSuspend() }
        capture.drop()
        playback.drop()
        var captureStatus = capture.prepareWithRetries()
        var captureFunction = "snd_pcm_prepare"
        var playbackStatus = playback.prepareWithRetries()
        var playbackFunction = "snd_pcm_prepare"
        if playbackStatus >= 0 {
            playbackStatus = playback.prefill()
            playbackFunction = "snd_pcm_writei"
        }
        if captureStatus >= 0 {
            captureStatus = capture.startPrepared()
            captureFunction = "snd_pcm_start"
        }
        if playbackStatus >= 0 {
            playbackStatus = playback.startPrepared()
            playbackFunction = "snd_pcm_start"
        }
        if captureStatus < 0 {
            capture.reopen(after: ALSAError(function: captureFunction, status: captureStatus, device: capture.device))
        }
        if playbackStatus < 0 {
            playback.reopen(after: ALSAError(function: playbackFunction, status: playbackStatus, device: playback.device))
        }
        guard !capture.isLost, !playback.isLost else { return }
        capture.countRestart(causedHere: cause === capture)
        playback.countRestart(causedHere: cause === playback)
        restarts.wrappingAdd(1, ordering: .releasing)
        post(.restarted(cause: cause.direction))
    }
}
