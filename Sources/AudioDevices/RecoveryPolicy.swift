// SPDX-License-Identifier: Apache-2.0
/// How hard a stream tries to recover from faults before it reopens the PCM, and before it
/// declares the device lost. Every loop is bounded, so a fault never hangs the I/O thread.
public struct RecoveryPolicy: Sendable, Hashable {
    /// `snd_pcm_recover`/`snd_pcm_prepare` attempts after an xrun before closing and reopening.
    public var recoveryAttempts: Int
    /// `snd_pcm_resume` attempts answered `EAGAIN` before falling back to `snd_pcm_prepare`.
    public var resumeAttempts: Int
    /// Sleep between resume attempts, in microseconds.
    public var resumeRetryMicroseconds: UInt32
    /// Close-and-open attempts before the device is declared lost.
    public var reopenAttempts: Int
    /// Periods of silence written before playback starts (and after each recovery).
    public var playbackPrefillPeriods: Int

    /// The defaults: 3 recoveries, resume for up to 1 s (100 × 10 ms), 2 reopens, 2 periods
    /// of prefill.
    public init(recoveryAttempts: Int = 3, resumeAttempts: Int = 100, resumeRetryMicroseconds: UInt32 = 10_000,
                reopenAttempts: Int = 2, playbackPrefillPeriods: Int = 2) {
        self.recoveryAttempts = recoveryAttempts
        self.resumeAttempts = resumeAttempts
        self.resumeRetryMicroseconds = resumeRetryMicroseconds
        self.reopenAttempts = reopenAttempts
        self.playbackPrefillPeriods = playbackPrefillPeriods
    }
}
