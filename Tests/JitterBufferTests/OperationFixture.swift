// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Opus
import TestSupport
@testable import JitterBuffer

/// What the operation tests share: a queue to produce into, a decoder that has decoded real
/// speech-like packets (so concealment has a signal to continue), and a way to read back what
/// was queued.
enum OperationFixture {
    static let frame = StreamFixture.frameSamples

    /// A queue with room for several of the longest Opus packets.
    static func queue() -> PlayoutQueue { PlayoutQueue(sampleCapacity: 8 * 5_760, segmentCapacity: 32) }

    /// A 48 kHz decoder that has decoded the first `packets` packets of the fixture's voice.
    static func primedDecoder(packets: Int = 10) throws -> OpusAudioDecoder {
        let decoder = try OpusAudioDecoder(sampleRate: StreamFixture.sampleRate)
        var pcm = [Int16](repeating: 0, count: 5_760)
        for payload in StreamFixture.payloads.prefix(packets) {
            _ = try payload.withUnsafeBytes { bytes in try pcm.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
        }
        return decoder
    }

    /// A stored packet's metadata.
    static func packet(sequence: Int64 = 100, timestamp: Int64 = 96_000, arrivalMs: Double = 1_000, hasFEC: Bool = false) -> PacketStore.Slot {
        PacketStore.Slot(isOccupied: true, sequence: sequence, timestamp: timestamp, arrivalMs: arrivalMs, byteCount: 60, hasFEC: hasFEC)
    }

    /// Playout due at `sequence` / `timestamp` (the defaults of `packet`), after a normal frame.
    static func state(sequence: Int64 = 100, timestamp: Int64 = 96_000) -> PlayoutState {
        var state = PlayoutState()
        state.move(toSequence: sequence, timestamp: timestamp)
        state.lastKind = .normal
        return state
    }

    /// Emits everything queued at `nowMs`: the samples and what the emission reported.
    static func drain(_ queue: PlayoutQueue, nowMs: Double = 1_000) -> (samples: [Int16], emission: PlayoutQueue.Emission) {
        var samples = [Int16](repeating: 0, count: queue.count)
        let emission = samples.withUnsafeMutableBufferPointer { queue.emit(into: $0, nowMs: nowMs) }
        return (samples, emission)
    }

    /// One 20 ms frame of the fixture's voiced signal (periodic: time-stretching finds its pitch).
    static let voicedFrame: [Int16] = Array(StreamFixture.voice(frameCount: 2)[frame..<(2 * frame)])

    /// One 20 ms frame of loud seeded white noise (no period: time-stretching must leave it alone).
    static let noiseFrame: [Int16] = {
        var generator = SeededGenerator(seed: 17)
        return (0..<frame).map { _ in Int16.random(in: -8_000...8_000, using: &generator) }
    }()
}
