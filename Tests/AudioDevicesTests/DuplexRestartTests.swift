// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import SystemErrors
import Testing

/// A duplex stream restarts capture and playback together after an xrun or suspend of either,
/// exactly as it started them, so the two directions never drift out of phase.
@Suite struct DuplexRestartTests {
    let parameters = StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4)

    func makeStream(_ alsa: ScriptedALSA, _ recorder: EventRecorder) throws -> ALSAStream<ScriptedALSA> {
        let stream = try ALSAStream(device: "mock", directions: .duplex, parameters: parameters, calls: alsa,
                                    onEvent: recorder.handler)
        try stream.start(thread: .none)
        return stream
    }

    /// What a joint restart asks of ALSA: drop both, prepare both, two periods of playback
    /// prefill, start both back to back.
    static let jointRestart = ["drop capture", "drop playback", "prepare capture", "prepare playback",
                               "write playback", "write playback", "start capture", "start playback"]

    @Test func startPrefillsPlaybackThenStartsBothBackToBack() throws {
        let alsa = ScriptedALSA(logsWrites: true)
        let stream = try makeStream(alsa, EventRecorder())
        #expect(alsa.log.suffix(4) == ["write playback", "write playback", "start capture", "start playback"])
        stream.stop()
    }

    @Test func captureXrunRestartsPlaybackToo() throws {
        let alsa = ScriptedALSA(logsWrites: true)
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder)
        stream.runOnce()
        #expect(stream.capturedSamplesAvailable == 480)
        alsa.clearLog()
        alsa.failIO(.capture, .brokenPipe)
        stream.runOnce()
        // The restart comes before playback is served in the same wake-up (its last write).
        #expect(alsa.log == Self.jointRestart + ["write playback"])
        #expect(recorder.all == [.xrun(.capture, count: 1), .restarted(cause: .capture)])
        #expect(stream.restartCount == 1)
        let capture = stream.statistics(.capture), playback = stream.statistics(.playback)
        #expect(capture.xruns == 1 && capture.recoveries == 1 && capture.restarts == 1)
        #expect(playback.xruns == 0 && playback.recoveries == 0 && playback.restarts == 1)
        #expect(stream.capturedSamplesAvailable == 480, "the ring keeps what was captured before the xrun")
        stream.runOnce()
        #expect(stream.read() == (0..<960).map { Int16($0) }, "capture flows on after the restart")
        #expect(recorder.all.contains { if case .recovered(.capture, _) = $0 { true } else { false } })
    }

    @Test func playbackXrunRestartsCaptureToo() throws {
        let alsa = ScriptedALSA(logsWrites: true)
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder)
        stream.runOnce()
        alsa.clearLog()
        alsa.failIO(.playback, .brokenPipe)
        stream.runOnce()
        #expect(alsa.log == Self.jointRestart)
        #expect(recorder.all == [.xrun(.playback, count: 1), .restarted(cause: .playback)])
        #expect(stream.restartCount == 1)
        #expect(stream.statistics(.playback).recoveries == 1 && stream.statistics(.playback).restarts == 1)
        #expect(stream.statistics(.capture).recoveries == 0 && stream.statistics(.capture).restarts == 1)
    }

    @Test func suspendIsResumedThenBothRestart() throws {
        let alsa = ScriptedALSA(logsWrites: true)
        let recorder = EventRecorder()
        let stream = try ALSAStream(device: "mock", directions: .duplex, parameters: parameters,
                                    policy: RecoveryPolicy(resumeRetryMicroseconds: 2_000), calls: alsa,
                                    onEvent: recorder.handler)
        try stream.start(thread: .none)
        alsa.clearLog()
        alsa.failIO(.capture, .streamPipe)
        alsa.scriptResume([.resourceTemporarilyUnavailable, nil])
        stream.runOnce()
        #expect(alsa.log == ["resume capture", "resume capture"] + Self.jointRestart + ["write playback"])
        #expect(alsa.sleptMicroseconds == 2_000)
        #expect(recorder.all == [.suspended(.capture), .restarted(cause: .capture)])
        #expect(stream.statistics(.capture).suspends == 1 && stream.statistics(.capture).recoveries == 1)
        #expect(stream.restartCount == 1)

        alsa.clearLog()
        alsa.failIO(.playback, .streamPipe)
        stream.runOnce()
        #expect(alsa.log == ["resume playback"] + Self.jointRestart, "capture served, then playback's suspend restarts both")
        #expect(stream.restartCount == 2)
        #expect(stream.statistics(.capture).restarts == 2 && stream.statistics(.playback).restarts == 2)
    }

    @Test func aSideThatWillNotPrepareIsReopenedAndBothRunOn() throws {
        let alsa = ScriptedALSA(logsWrites: true)
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder)
        alsa.clearLog()
        alsa.failIO(.playback, .brokenPipe)
        alsa.scriptPrepare([.ioError, .ioError, .ioError])  // capture's three attempts
        stream.runOnce()
        #expect(alsa.log == ["drop capture", "drop playback", "prepare capture", "prepare capture", "prepare capture",
                             "prepare playback", "write playback", "write playback", "start playback",
                             "drop capture", "close capture", "open capture", "configure capture", "start capture"])
        #expect(recorder.all == [.xrun(.playback, count: 1), .reopened(.capture), .restarted(cause: .playback)])
        #expect(stream.restartCount == 1)
        stream.runOnce()
        #expect(stream.capturedSamplesAvailable == 2 * 480, "a period before the restart, one from the reopened PCM")
    }

    @Test func afterOneDirectionIsLostTheOtherRecoversAlone() throws {
        let alsa = ScriptedALSA(logsWrites: true)
        let recorder = EventRecorder()
        let stream = try makeStream(alsa, recorder)
        alsa.scriptOpen([.noSuchDevice, .noSuchDevice])
        alsa.failIO(.capture, .noSuchDevice)
        #expect(stream.runOnce())
        #expect(stream.statistics(.capture).isLost)
        alsa.clearLog()
        alsa.failIO(.playback, .brokenPipe)
        stream.runOnce()
        #expect(alsa.log == ["recover playback", "write playback", "write playback", "start playback"])
        #expect(stream.restartCount == 0)
        #expect(stream.statistics(.playback).recoveries == 1 && stream.statistics(.playback).restarts == 0)
        #expect(!recorder.all.contains(.restarted(cause: .playback)))
    }
}
