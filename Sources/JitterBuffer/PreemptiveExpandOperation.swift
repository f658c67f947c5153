// SPDX-License-Identifier: Apache-2.0
import DSP

/// Preemptive expand: a decoded frame lengthened by one pitch period (`TimeStretcher`), to
/// raise the delay toward the target before the next packet would be missed. No allocation
/// after `init`.
final class PreemptiveExpandOperation {
    private let stretcher: TimeStretcher
    private let queue: PlayoutQueue
    private let output: UnsafeMutableBufferPointer<Int16>
    /// The longest pitch period inserted, in samples.
    var maximumPeriod: Int { stretcher.maximumPeriod }

    /// A preemptive-expand step for frames of up to `maximumFrameCount` samples at `sampleRate`, into `queue`.
    init(sampleRate: Int, maximumFrameCount: Int, queue: PlayoutQueue) {
        stretcher = TimeStretcher(sampleRate: sampleRate, maximumFrameCount: maximumFrameCount)
        self.queue = queue
        output = .allocate(capacity: maximumFrameCount + stretcher.maximumPeriod)
        output.initialize(repeating: 0)
    }

    deinit { output.deallocate() }

    /// Lengthens `frame` (decoded from `packet`) and queues the result. Returns false, queueing
    /// nothing, when the signal has no period it may repeat: the frame is then played as it is.
    func run(_ frame: UnsafeBufferPointer<Int16>, packet: PacketStore.Slot,
             state: inout PlayoutState, statistics: inout JitterBufferStatistics) -> Bool {
        let written = stretcher.preemptiveExpand(frame, into: output)
        guard written > frame.count else { return false }
        statistics.insertedSamplesForDeceleration += written - frame.count
        queue.append(UnsafeBufferPointer(rebasing: output[0..<written]), kind: .preemptiveExpand,
                     sequenceNumber: packet.rtpSequenceNumber, arrivalMs: packet.arrivalMs)
        state.finishProduction(.preemptiveExpand)
        return true
    }
}
