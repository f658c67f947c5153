// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
import Locking
import MediaEngine
import SRTP
import SystemErrors
import Synchronization
import Testing
import TestSupport

/// An engine on a device that is not ALSA: a backend at the level of one period
/// (`AudioDeviceBackend`, `AudioDeviceStream`), as a host application's audio callback or
/// another sound server would be — AudioDevicesTesting's `PeriodCallbackDevice`, whose thread
/// wakes every 10 ms on the monotonic clock, runs the engine's cycle, records what the engine
/// queued and captures silence.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DeviceBackendTests {
    @Test func anEngineCallsOverABackendThatIsNotALSA() throws {
        let seconds = 4
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80), bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let alice = try EngineParty(speech: VoiceEngineTests.alice, sendingKey: aliceKey, receivingKey: bobKey, loops: true)
        let device = PeriodCallbackDevice(recordingSeconds: seconds + 2)
        let backend = PeriodCallbackBackend(device: device)
        let bob = try EngineParty(speech: [], sendingKey: bobKey, receivingKey: aliceKey,
                                  opener: AudioDeviceOpener(name: "callback", backend: backend))
        try alice.socket.setRemote(bob.socket.localEndpoint)
        try bob.socket.setRemote(alice.socket.localEndpoint)
        try alice.addCall()
        let bobCall = try bob.addCall()
        try bob.engine.start()
        try alice.engine.start()
        #expect(bob.engine.deviceName == "callback")
        // Until the device has served `seconds` of periods, however long a loaded machine takes
        // (a count, not a rate; the recording holds two seconds more).
        let deadline = MonotonicClock.nanoseconds + 60_000_000_000
        while device.periods < seconds * 100, MonotonicClock.nanoseconds < deadline {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 50_000_000)
        }
        alice.engine.stop()
        bob.engine.stop()
        // Both read once Bob's engine (and so the device) stopped: the packets and the periods
        // they were sent over are counted over the same run, however long the stop took.
        let sent = try #require(bob.engine.statistics(of: bobCall)).outbound.packetsSent
        let periods = device.periods
        #expect(backend.openCount == 1)
        #expect(periods >= seconds * 100, "the device ran \(periods) periods")
        // Bob's uplink ran on the backend's cycle: 50 frames a second of its periods (less a
        // few for the cycles around the start and the last counters published).
        #expect(sent >= periods / 2 - 10, "Bob sent \(sent) packets over \(periods) periods")
        // Alice's speech reached Bob's loudspeaker through the backend.
        let played = device.recording()
        let quality = CallOverNetworkTests.quality(Array(VoiceEngineTests.alice.prefix(played.count)), played)
        #expect(quality > 0.5, "Bob's backend played Alice with correlation \(quality)")
    }

    /// A backend's own failure reaches the engine's caller as it was given: operation, errno,
    /// device and the backend's words (an audio session maps the errno, as for ALSA).
    @Test func aBackendsFailureReachesTheCallerInItsOwnWords() throws {
        let refusal = AudioDeviceError(operation: "pw_context_connect", code: .connectionRefused, device: "pipewire",
                                       detail: "no PipeWire daemon on this session")
        let party = try EngineParty(speech: [],
                                    opener: AudioDeviceOpener(name: "pipewire", backend: RefusingBackend(refusal: refusal)))
        #expect(throws: VoiceEngineError.device(refusal)) { try party.engine.start() }
        #expect(party.engine.openDeviceOnce() == refusal)
    }

    /// A backend that cannot open anything.
    struct RefusingBackend: AudioDeviceBackend {
        let refusal: AudioDeviceError

        func openStream(named name: String, directions: StreamDirections, parameters: StreamParameters, policy: RecoveryPolicy,
                        onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(AudioDeviceError) -> any AudioDeviceStream {
            throw refusal
        }
    }
}
