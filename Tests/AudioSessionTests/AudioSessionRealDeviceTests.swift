// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
@testable import AudioSession
import Dispatch
import Locking
import MediaEngine
import Testing
import TestSupport

/// Whether the PulseAudio loopback's `pulse` PCM opens (checked under the real-device lock).
enum SessionRealDevice {
    static let opens: Bool = RealDeviceLock.withLock { (try? ALSAStream(device: PulseAudioLoopback.device, directions: .playback)) != nil }
    static let enabled = PulseAudioLoopback.required || opens
    static let skipReason: Comment = "no pulse PCM opens: make test starts the PulseAudio loopback (VOICEENGINE_REQUIRE_ALSA=1 fails instead)"
}

/// A session over an engine on the real PulseAudio loopback, through the daemon's death and
/// return: media services lost, reset, and audio again only once the app reactivates.
///
/// Not here: a second process holding the device (EBUSY). PulseAudio shares its PCM among
/// clients, so `pulse` is never busy; only a `hw:` device is exclusive, and the test machines
/// have none. `AudioSessionInterruptionTests` and the property test cover it on scripted ALSA.
// The limit includes waiting for RealDeviceLock, which every real-device suite holds in turn
// (minutes under ThreadSanitizer).
@Suite(.serialized, .enabled(if: SessionRealDevice.enabled, SessionRealDevice.skipReason), .timeLimit(.minutes(5)))
struct AudioSessionRealDeviceTests {
    final class EventLog: Sendable {
        let events = Locked<[AudioSessionEvent]>([])

        func wait(seconds: Double, for event: AudioSessionEvent) -> Bool {
            let deadline = MonotonicClock.nanoseconds + Int64(seconds * 1e9)
            repeat {
                if events.withLock({ $0.contains(event) }) { return true }
                MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 10_000_000)
            } while MonotonicClock.nanoseconds < deadline
            return false
        }
    }

    /// Captured and played frames grow by at least a third of real time over half a second,
    /// within 5 s of the start (PulseAudio delivers the first capture up to ~1 s late).
    static func audioFlows(_ engine: VoiceEngine) -> Bool {
        func frames() -> (capture: Int, playback: Int) {
            (engine.deviceStatistics(.capture)?.frames ?? 0, engine.deviceStatistics(.playback)?.frames ?? 0)
        }
        let deadline = MonotonicClock.nanoseconds + 5_000_000_000
        let minimum = 48_000 / 6
        repeat {
            let before = frames()
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 500_000_000)
            let after = frames()
            if after.capture - before.capture >= minimum && after.playback - before.playback >= minimum { return true }
        } while MonotonicClock.nanoseconds < deadline
        print("AudioSessionRealDeviceTests: frames \(frames()), running \(engine.isRunning)")
        return false
    }

    @Test func theDaemonStoppedLosesTheMediaServicesAndItsReturnResetsThem() throws {
        try RealDeviceLock.withLock { () throws -> Void in
            defer { #expect(PulseAudioLoopback.run("start"), "restarting the PulseAudio loopback for later tests") }
            var configuration = VoiceEngineConfiguration()
            configuration.device = .alsa(PulseAudioLoopback.device)
            configuration.requiresAudioSession = true
            let engine = try VoiceEngine(configuration: configuration)
            defer { engine.shutdown() }
            // The server's health from ALSA, no routes: the engine stays on `pulse` (a route
            // would move it to the system's `default` PCM, which need not be the loopback).
            let system = AudioSessionDeviceLayer.alsa(server: PulseAudioLoopback.device)
            let center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(devices: { [] }, servicesFailure: system.servicesFailure))
            #expect(!center.mediaServicesLost)
            let session = AudioSession(name: "call", priority: .call, center: center)
            let log = EventLog()
            session.setEventHandler(queue: DispatchQueue(label: "AudioSessionRealDeviceTests")) { event in
                log.events.withLock { $0.append(event) }
            }
            try session.setCategory(.playAndRecord, mode: .voiceChat)
            try session.attach(engine)
            #expect(throws: VoiceEngineError.sessionNotActive) { try engine.start() }

            try session.setActive(true)
            #expect(Self.audioFlows(engine), "audio flows once the session is active")

            // As an app would: the engine's own loss notice, or failing that the next check, finds the server gone.
            center.startMonitoringDevices(every: .milliseconds(100))
            defer { center.stopMonitoringDevices() }
            // Timed from the stop command (the script returns once the daemon no longer answers).
            var since = MonotonicClock.nanoseconds
            #expect(PulseAudioLoopback.run("stop"))
            #expect(log.wait(seconds: 10, for: .mediaServicesWereLost), "events: \(log.events.withLock { $0 })")
            let lostMs = Double(MonotonicClock.nanoseconds - since) / 1e6
            #expect(center.mediaServicesLost && !session.isActive && !engine.isRunning)
            #expect(throws: AudioSessionError.self) { try session.setActive(true) }
            #expect(!engine.isRunning)

            since = MonotonicClock.nanoseconds
            #expect(PulseAudioLoopback.run("start"))
            #expect(log.wait(seconds: 10, for: .mediaServicesWereReset), "events: \(log.events.withLock { $0 })")
            let resetMs = Double(MonotonicClock.nanoseconds - since) / 1e6
            print("AudioSessionRealDeviceTests: lost \(lostMs) ms after the stop command, reset \(resetMs) ms after the start command; events \(log.events.withLock { $0 })")
            #expect(!center.mediaServicesLost && !session.isActive)
            #expect(!engine.isRunning, "audio does not restart by itself")

            try session.setCategory(.playAndRecord, mode: .voiceChat)
            try session.setActive(true)
            #expect(Self.audioFlows(engine), "audio flows again after the reset and the reactivation")
            try session.setActive(false)
            #expect(!engine.isRunning)
        }
    }
}
