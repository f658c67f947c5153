// SPDX-License-Identifier: Apache-2.0
@testable import AudioDevices
import Foundation
import AudioProcessing
@testable import CallCore
@testable import MediaEngine
import SystemErrors
import Testing

/// A sound server that drops captured audio without saying so (PulseAudio under load) makes
/// the echo arrive *before* the reference the mixer pairs with it; no canceller can delay a
/// reference backwards. The engine's audio cycle must notice (the echo found at the
/// reference's own instant) and move the reference, so the echo is cancelled again.
@Suite struct LeadingEchoReferenceTests {
    /// A duplex device on one clock, stepped by the test: each `tick` plays one period of
    /// what the engine wrote and captures one period of what was played `echoDelaySamples`
    /// earlier (a loopback, 0 dB echo return loss). Like PulseAudio's, its capture starts a
    /// second late (the engine renders ahead meanwhile, and its reference queue overflows),
    /// it reports its playback delay honestly (`reportedDelayFrames`), and the echo path can
    /// shorten without a word (`dropCapture`).
    final class SteppedLoopback: AudioDeviceStream, @unchecked Sendable {
        let period = 480
        private(set) var played: [Int16]
        private var playedCount = 0
        private var queued: [Int16] = []
        private var captured: [Int16] = []
        private var capturedCount = 0
        private var ticks = 0
        let captureStartTick = 100
        var echoDelaySamples: Int
        let reportedDelayFrames: Int

        init(echoDelayMs: Int, seconds: Int) {
            echoDelaySamples = echoDelayMs * 48
            reportedDelayFrames = echoDelayMs * 48
            played = [Int16](repeating: 0, count: seconds * 48_000 + 48_000)
            queued.reserveCapacity(4 * period)
        }

        /// The server skips `milliseconds` of what the microphone heard: from now on the echo
        /// comes that much sooner.
        func dropCapture(milliseconds: Int) { echoDelaySamples -= milliseconds * 48 }

        /// One period passes on the device.
        func tick() {
            for index in 0..<period {
                played[playedCount + index] = index < queued.count ? queued[index] : 0
            }
            queued.removeFirst(min(period, queued.count))
            playedCount += period
            ticks += 1
            guard ticks > captureStartTick else { return }
            for index in 0..<period {
                let source = capturedCount + captureStartTick * period + index - echoDelaySamples
                captured.append(source >= 0 && source < playedCount ? played[source] : 0)
            }
            capturedCount += period
        }

        func start(thread: IOThreadMode, onCycle: (@Sendable () -> Void)?) throws(AudioDeviceError) {}
        func stop() {}
        func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
            let count = min(buffer.count, captured.count)
            for index in 0..<count { buffer[index] = captured[index] }
            captured.removeFirst(count)
            return count
        }
        func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
            queued.append(contentsOf: samples)
            return samples.count
        }
        var playbackSpaceAvailable: Int { 4 * period - queued.count }
        var playbackQueuedSamples: Int { queued.count }
        func parameters(for direction: AudioDirection) -> StreamParameters? { StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 4) }
        func statistics(_ direction: AudioDirection) -> StreamStatistics { StreamStatistics() }
        func delayFrames(_ direction: AudioDirection) -> Int { direction == .playback ? reportedDelayFrames : 0 }
        var isRealtime: Bool { false }
        var realtimeRefusal: Errno? { nil }
        var restartCount: Int { 0 }
        var isLost: Bool { false }
        func stall(milliseconds: Int) -> Int { 0 }
    }

    /// Alice talks to Bob; Bob's device is the stepped loopback, 150 ms from his loudspeaker
    /// to his microphone, that shortens by `dropMs` after 4 s. Returns how far below his
    /// microphone his uplink's echo is over the last 4 s of 14, in dB, and his statistics.
    static func call(dropMs: Int) throws -> (suppressionDb: Double, statistics: MediaSourceStatistics) {
        let seconds = 14
        let speech = CallOverNetworkTests.alice
        var plain = MixerConfiguration()
        plain.processing = ProcessingConfiguration()
        var voiceChat = MixerConfiguration()
        voiceChat.processing = ProcessingConfiguration.voiceChat
        let alice = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        let bob = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        let aliceMixer = try CallMixer(configuration: plain)
        try aliceMixer.add(alice)
        let bobMixer = try CallMixer(configuration: voiceChat)
        try bobMixer.add(bob)
        // The periods as stepped, not as fast as the machine runs them: on the wall clock a
        // loaded machine made 14 s of audio last a minute, and the jitter buffer saw its
        // packets drift.
        let time = SteppedTime()
        let clock = EngineClock(stepped: time)
        let cycle = AudioCycle(drivingOnly: bobMixer, clock: clock)
        let device = SteppedLoopback(echoDelayMs: 150, seconds: seconds)
        cycle.attach(device, mixer: nil)
        let frame = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 960)
        defer { frame.deallocate() }
        var before = MediaSourceStatistics()
        for tick in 0..<(seconds * 100) {
            if tick == 400 { device.dropCapture(milliseconds: dropMs) }
            if tick == (seconds - 4) * 100 { before = bobMixer.mediaSourceStatistics }
            if tick % 2 == 0 {
                let start = (tick / 2 * 960) % (speech.count - 960)
                speech.withUnsafeBufferPointer { aliceMixer.capture(UnsafeBufferPointer(rebasing: $0[start..<(start + 960)])) }
                aliceMixer.render(into: frame, nowMs: clock.milliseconds)
                alice.sendDatagrams(nowMs: clock.milliseconds) { packet in
                    var bytes = [UInt8](packet)
                    bytes.withUnsafeMutableBytes { bob.receiveDatagram($0, arrivalTimeMs: clock.milliseconds) }
                }
                bob.sendDatagrams(nowMs: clock.milliseconds) { _ in }
            }
            device.tick()
            cycle.cycle()
            time.advance(milliseconds: 10)
        }
        let after = bobMixer.mediaSourceStatistics
        let microphone = after.totalMicrophoneEnergy - before.totalMicrophoneEnergy
        let uplink = after.totalAudioEnergy - before.totalAudioEnergy
        return (10 * log10(max(microphone, 1e-20) / max(uplink, 1e-20)), after)
    }

    @Test func anEchoThatComesSoonerThanItsReferenceIsCancelledAgain() throws {
        let (suppression, statistics) = try Self.call(dropMs: 110)
        #expect(statistics.echoReferenceLeadCorrections >= 1, "echo \(suppression) dB below the microphone; \(statistics)")
        #expect(suppression >= 30, "echo \(suppression) dB below the microphone; \(statistics)")
    }

    /// The baseline: the same call without the drop is cancelled, and nothing is moved.
    @Test func anEchoBehindItsReferenceIsLeftWhereItIs() throws {
        let (suppression, statistics) = try Self.call(dropMs: 0)
        #expect(statistics.echoReferenceLeadCorrections == 0, "\(statistics)")
        #expect(suppression >= 30, "echo \(suppression) dB below the microphone; \(statistics)")
    }
}
