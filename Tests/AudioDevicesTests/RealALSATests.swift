// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Testing
import TestSupport

/// Whether the real-device tests run: the PulseAudio loopback's `pulse` PCM must open, and
/// with `VOICEENGINE_REQUIRE_ALSA=1` (CI) they run, and fail, even when it does not.
enum RealALSA {
    static let device = PulseAudioLoopback.device
    static let required = PulseAudioLoopback.required
    /// Under the real-device lock: another suite may be stopping the daemon this instant.
    static let opens: Bool = RealDeviceLock.withLock { (try? ALSAStream(device: device, directions: .playback)) != nil }
    static let enabled = required || opens
    static let skipReason: Comment = """
        no ALSA device opens: run scripts/pulseaudio-loopback start and export PULSE_SERVER \
        (make test does), or set VOICEENGINE_REQUIRE_ALSA=1 to fail instead of skipping
        """

    /// The repository's scripts/pulseaudio-loopback with `command`; true when it exits 0.
    @discardableResult
    static func loopbackScript(_ command: String) -> Bool { PulseAudioLoopback.run(command) }

    static let parameters = StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4)
}

/// Real ALSA through the PulseAudio null-sink loopback: what is played comes back on capture.
/// One at a time (they share the device): `.serialized` within the suite, and each holds
/// `RealDeviceLock` against other suites and test processes that use the loopback. Every
/// wait is bounded.
// The limit includes waiting for RealDeviceLock, which every real-device suite holds in turn
// (minutes under ThreadSanitizer).
@Suite(.serialized, .enabled(if: RealALSA.enabled, RealALSA.skipReason), .timeLimit(.minutes(5)))
struct RealALSATests {
    @Test func playsAKnownSignalAndCapturesItBack() throws {
        try RealDeviceLock.withLock { () throws -> Void in
            let stream = try ALSAStream(device: RealALSA.device, directions: .duplex, parameters: RealALSA.parameters)
            #expect(stream.parameters(for: .capture)?.sampleRate == 48_000)
            #expect(stream.parameters(for: .playback)?.periodFrames == 480)
            let chirp = LoopbackProbe.chirp(sampleRate: 48_000)
            let result = try LoopbackProbe.run(stream, signal: chirp, timeoutSeconds: 10)
            let latency = try #require(result.latencyMs, "the chirp was not found in the capture")
            let measured: Comment = """
                loopback round trip through \(RealALSA.device) at 10 ms periods: \(String(format: "%.1f", latency)) ms, \
                correlation \(String(format: "%.3f", result.correlation)), SCHED_FIFO \(stream.isRealtime), \
                playback delay \(stream.statistics(.playback).delayFrames) frames
                """
            #expect(result.correlation > 0.9, measured)
            #expect(latency > 0 && latency < 500, measured)
            #expect(stream.statistics(.capture).xruns == 0)
            #expect(stream.timestampNanoseconds(.capture) > 0 || stream.timestampNanoseconds(.playback) > 0)
        }
    }

    @Test func stalledIOThreadUnderrunsAndRecovers() throws {
        try RealDeviceLock.withLock { () throws -> Void in
            let recorder = EventRecorder()
            let alsa = SystemALSA(configuration: "pcm.loop { type pulse handle_underrun true }")
            let stream = try ALSAStream(device: "loop", directions: .duplex, parameters: RealALSA.parameters,
                                        calls: alsa, onEvent: recorder.handler)
            try stream.start()
            defer { stream.stop() }
            let warmUp = Date().addingTimeInterval(5)
            while stream.statistics(.playback).frames < 9_600 && Date() < warmUp { usleep(2_000); _ = stream.read() }
            // PulseAudio does not always report the first stall (its server-side buffer can be
            // longer than ALSA's), so the stall grows until an underrun is reported.
            var recovered: AudioDeviceEvent? = nil
            for stallMs in [300, 600, 1_000] where recovered == nil {
                stream.stall(milliseconds: stallMs)
                recovered = recorder.wait(timeoutSeconds: Double(stallMs) / 1_000 + 1) {
                    if case .recovered(.playback, _) = $0 { true } else { false }
                }
            }
            let statistics = stream.statistics(.playback)
            #expect(statistics.xruns >= 1, "stalls of up to 1 s with a 40 ms buffer must underrun")
            #expect(recovered != nil)
            #expect(stream.restartCount >= 1, "a duplex stream restarts capture with playback: \(recorder.all.map(\.description))")
            #expect(recorder.all.contains(.restarted(cause: .playback)))
            let before = statistics.frames
            let flowing = Date().addingTimeInterval(5)
            while stream.statistics(.playback).frames < before + 4_800 && Date() < flowing { usleep(2_000); _ = stream.read() }
            #expect(stream.statistics(.playback).frames >= before + 4_800, "playback runs again after recovery")
            #expect(!stream.isLost)
            if case let .recovered(_, nanoseconds)? = recovered {
                #expect(nanoseconds < 1_000_000_000, """
                    xrun recovery on \(RealALSA.device) (handle_underrun): \(String(format: "%.2f", Double(nanoseconds) / 1e6)) ms \
                    from EPIPE to the next period written; xruns \(statistics.xruns)
                    """)
            }
        }
    }

    @Test func stoppingTheDaemonIsADeviceLostEvent() throws {
        try RealDeviceLock.withLock { () throws -> Void in
            let recorder = EventRecorder()
            let stream = try ALSAStream(device: RealALSA.device, directions: .duplex, parameters: RealALSA.parameters,
                                        onEvent: recorder.handler)
            try stream.start()
            defer {
                stream.stop()
                #expect(RealALSA.loopbackScript("start"), "restarting the PulseAudio loopback for later tests")
            }
            let warmUp = Date().addingTimeInterval(5)
            while stream.statistics(.capture).frames < 4_800 && Date() < warmUp { usleep(2_000); _ = stream.read() }
            #expect(stream.statistics(.capture).frames >= 4_800)
            #expect(RealALSA.loopbackScript("stop"))
            let lost = recorder.wait(timeoutSeconds: 10) {
                if case .deviceLost = $0 { true } else { false }
            }
            #expect(lost != nil, "no device-lost event after the daemon stopped; events: \(recorder.all)")
            let stopped = Date()
            stream.stop()
            #expect(Date().timeIntervalSince(stopped) < 3, "events after the daemon stopped: \(recorder.all.map(\.description))")
        }
    }
}
