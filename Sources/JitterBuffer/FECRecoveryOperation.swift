// SPDX-License-Identifier: Apache-2.0
import AudioCodecs

/// FEC recovery: a missing packet rebuilt from the in-band FEC (Opus LBRR) that the packet after
/// it carries — the sender's own lower-rate coding of the frame, so nothing is concealed. No
/// allocation after `init`.
final class FECRecoveryOperation {
    /// The active decoder conceals or decodes (the one that played last).
    private let decoders: PayloadDecoders
    private let queue: PlayoutQueue
    private let output: UnsafeMutableBufferPointer<Int16>

    /// A recovery step decoding with the active decoder of `decoders` into `queue`, for spans up to `maximumPacketSamples`.
    init(decoders: PayloadDecoders, queue: PlayoutQueue, maximumPacketSamples: Int) {
        self.decoders = decoders
        self.queue = queue
        output = .allocate(capacity: maximumPacketSamples)
        output.initialize(repeating: 0)
    }

    deinit { output.deallocate() }

    /// Decodes `sampleCount` samples of the packet before `carrier` from the FEC in `carrier`'s
    /// `payload` and queues them; playout goes on at `carrier`. (Concealment may have covered
    /// earlier missing packets: the one rebuilt is always the carrier's predecessor.) Returns
    /// false, changing nothing, when the payload yields no FEC: the span must be concealed instead.
    func run(carrier: PacketStore.Slot, payload: UnsafeRawBufferPointer, sampleCount: Int,
             state: inout PlayoutState, statistics: inout JitterBufferStatistics) -> Bool {
        let frame = UnsafeMutableBufferPointer(rebasing: output[0..<sampleCount])
        guard let count = try? decoders.active.decodeFEC(from: payload, into: frame) else { return false }
        statistics.fecPacketsRecovered += 1
        let sequenceNumber = UInt16(truncatingIfNeeded: carrier.sequence - 1)
        state.move(toSequence: carrier.sequence, timestamp: state.nextTimestamp + Int64(count))
        queue.append(UnsafeBufferPointer(rebasing: output[0..<count]), kind: .fecRecovery, sequenceNumber: sequenceNumber,
                     arrivalMs: carrier.arrivalMs)
        state.finishProduction(.fecRecovery)
        return true
    }
}
