// SPDX-License-Identifier: Apache-2.0
import AudioCodecs

/// Comfort noise: the sender's silence (Opus DTX). Its DTX packet decodes to the decoder's
/// comfort noise; over the gap that follows (no packets, timestamps jump, sequence numbers go
/// on) the decoder goes on concealing, which after a DTX packet continues the sender's
/// background noise — Opus expects lost-frame decoding during DTX. Counted as silent
/// concealment, not loss. No allocation after `init`.
final class ComfortNoiseOperation {
    /// The active decoder conceals or decodes (the one that played last).
    private let decoders: PayloadDecoders
    private let queue: PlayoutQueue
    private let output: UnsafeMutableBufferPointer<Int16>
    /// The shortest Opus frame (2.5 ms) in samples: the decoder conceals whole multiples of it.
    private let stepSamples: Int

    /// A comfort-noise step decoding with the active decoder of `decoders` into `queue`, up to `samplesPerFrame` at a time.
    init(decoders: PayloadDecoders, queue: PlayoutQueue, sampleRate: Int, samplesPerFrame: Int) {
        self.decoders = decoders
        self.queue = queue
        stepSamples = sampleRate / 400
        output = .allocate(capacity: samplesPerFrame)
        output.initialize(repeating: 0)
    }

    deinit { output.deallocate() }

    /// Queues the decoded DTX packet `packet` (`frame`): it counts as played, but as silent
    /// concealment rather than emitted packet audio.
    func run(dtxFrame frame: UnsafeBufferPointer<Int16>, packet: PacketStore.Slot,
             state: inout PlayoutState, statistics: inout JitterBufferStatistics) {
        statistics.concealedSamples += frame.count
        statistics.silentConcealedSamples += frame.count
        queue.append(frame, kind: .comfortNoise, sequenceNumber: packet.rtpSequenceNumber, arrivalMs: nil)
        state.finishProduction(.comfortNoise)
    }

    /// Queues `sampleCount` (≤ a frame) samples of the decoder's comfort noise — digital silence
    /// when the span is not a whole number of 2.5 ms steps. `advancing`: the gap's end is known
    /// (the next packet is stored), so playout moves through it; otherwise it waits for the
    /// sender's next packet.
    func run(sampleCount: Int, advancing: Bool, state: inout PlayoutState, statistics: inout JitterBufferStatistics) {
        let frame = UnsafeMutableBufferPointer(rebasing: output[0..<sampleCount])
        if sampleCount % stepSamples != 0 || (try? decoders.active.conceal(into: frame)) != sampleCount {
            frame.update(repeating: 0)
        }
        statistics.concealedSamples += sampleCount
        statistics.silentConcealedSamples += sampleCount
        if advancing {
            state.nextTimestamp += Int64(sampleCount)
        } else {
            state.waitedSamples += sampleCount
        }
        state.expandedSamples = 0
        state.followsConcealment = false
        queue.append(UnsafeBufferPointer(frame), kind: .comfortNoise, sequenceNumber: nil, arrivalMs: nil)
        state.lastKind = .comfortNoise
    }
}
