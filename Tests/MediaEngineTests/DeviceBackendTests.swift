import AudioDevices
import Foundation
import Locking
import MediaEngine
import SRTP
import SystemErrors
import Synchronization
import Testing
import TestSupport

/// An engine on a device that is not ALSA: a backend of the test's own at the level of one
/// period (`AudioDeviceBackend`, `AudioDeviceStream`), as a host application's audio callback or
/// another sound server would be. Its thread wakes every 10 ms on the monotonic clock, runs the
/// engine's cycle, plays what the engine queued into a recording and captures silence.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DeviceBackendTests {
    /// A period-callback device: nothing of ALSA, no `ALSACalls`.
    final class CallbackDevice: AudioDeviceStream, @unchecked Sendable {
        // @unchecked: the rings and buffers are touched by the device thread only; the
        // recording is read after `stop()` joined it.
        let period = 480
        private var thread: JoinableThread?
        private let running = Atomic<Bool>(false)
        private let captured: SampleRing
        private let queued: SampleRing
        private let scratch: UnsafeMutableBufferPointer<Int16>
        private(set) var played: [Int16] = []
        private let cycles = Atomic<Int>(0)
        /// Periods the device played.
        var periods: Int { cycles.load(ordering: .relaxed) }

        init(seconds: Int) {
            captured = SampleRing(minimumCapacity: 8 * period)
            queued = SampleRing(minimumCapacity: 8 * period)
            scratch = .allocate(capacity: period)
            scratch.initialize(repeating: 0)
            played.reserveCapacity(seconds * 48_000 + 48_000)
        }

        deinit { scratch.deallocate() }

        func start(thread mode: IOThreadMode, onCycle: (@Sendable () -> Void)?) throws(ALSAError) {
            guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
            let silence = [Int16](repeating: 0, count: period)
            thread = JoinableThread.spawn { [self] in
                var deadline = MonotonicClock.nanoseconds
                while running.load(ordering: .acquiring) {
                    deadline += 10_000_000
                    MonotonicClock.sleep(untilNanoseconds: deadline)
                    silence.withUnsafeBufferPointer { _ = captured.write($0) }
                    onCycle?()
                    let count = queued.read(into: scratch)
                    played.append(contentsOf: scratch[0..<count])
                    if count < period { played.append(contentsOf: repeatElement(0, count: period - count)) }
                    cycles.add(1, ordering: .relaxed)
                }
            }
        }

        func stop() {
            guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
            thread?.join()
            thread = nil
        }

        func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int { captured.read(into: buffer) }
        func write(_ samples: UnsafeBufferPointer<Int16>) -> Int { queued.write(samples) }
        var playbackSpaceAvailable: Int { queued.availableToWrite }
        var playbackQueuedSamples: Int { queued.availableToRead }
        func parameters(for direction: AudioDirection) -> StreamParameters? { StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 2) }
        func statistics(_ direction: AudioDirection) -> StreamStatistics {
            var statistics = StreamStatistics()
            statistics.frames = periods * period
            return statistics
        }
        func delayFrames(_ direction: AudioDirection) -> Int { 0 }
        var isRealtime: Bool { false }
        var realtimeRefusal: Errno? { nil }
        var restartCount: Int { 0 }
        var isLost: Bool { false }
        func stall(milliseconds: Int) -> Int { 0 }
    }

    /// Opens the one device it was given.
    struct CallbackBackend: AudioDeviceBackend {
        let device: CallbackDevice
        let opens = Opens()
        final class Opens: Sendable { let count = Atomic<Int>(0) }

        func openStream(named name: String, parameters: StreamParameters, policy: RecoveryPolicy,
                        onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(ALSAError) -> any AudioDeviceStream {
            opens.count.add(1, ordering: .relaxed)
            return device
        }
    }

    @Test func anEngineCallsOverABackendThatIsNotALSA() throws {
        let seconds = 4
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80), bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let alice = try EngineParty(speech: VoiceEngineTests.alice, sendingKey: aliceKey, receivingKey: bobKey, loops: true)
        let device = CallbackDevice(seconds: seconds + 2)
        let backend = CallbackBackend(device: device)
        let bob = try EngineParty(speech: [], sendingKey: bobKey, receivingKey: aliceKey,
                                  opener: AudioDeviceOpener(name: "callback", backend: backend))
        try alice.socket.setRemote(bob.socket.localEndpoint)
        try bob.socket.setRemote(alice.socket.localEndpoint)
        try alice.addCall()
        let bobCall = try bob.addCall()
        try bob.engine.start()
        try alice.engine.start()
        #expect(bob.engine.deviceName == "callback")
        MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + Int64(seconds) * 1_000_000_000)
        let sent = try #require(bob.engine.statistics(of: bobCall)).outbound.packetsSent
        alice.engine.stop()
        bob.engine.stop()
        #expect(backend.opens.count.load(ordering: .relaxed) == 1)
        #expect(device.periods >= 100, "the device ran \(device.periods) periods in \(seconds) s")
        // Bob's uplink ran on the backend's cycle: 50 frames a second of its periods.
        #expect(sent >= device.periods / 2 - 10, "Bob sent \(sent) packets over \(device.periods) periods")
        // Alice's speech reached Bob's loudspeaker through the backend.
        let quality = CallOverNetworkTests.quality(Array(VoiceEngineTests.alice.prefix(device.played.count)), device.played)
        #expect(quality > 0.5, "Bob's backend played Alice with correlation \(quality)")
    }
}
