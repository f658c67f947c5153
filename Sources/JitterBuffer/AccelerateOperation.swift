// SPDX-License-Identifier: Apache-2.0
import DSP

/// Accelerate: a decoded frame shortened by whole pitch periods (`TimeStretcher`), to bring the
/// delay down toward the target without a click or a change of pitch. No allocation after `init`.
final class AccelerateOperation {
    /// How much may be removed.
    enum Extent: Equatable {
        /// Up to this many pitch periods, one after another (more than one only when the delay is
        /// several frames above target: NetEq's fast accelerate).
        case periods(Int)
        /// One period no longer than this many samples: audio queued from earlier stretching,
        /// which is pure delay, trimmed without removing more than it.
        case queuedSamples(Int)
    }

    private let stretcher: TimeStretcher
    private let queue: PlayoutQueue
    private let output: UnsafeMutableBufferPointer<Int16>

    /// An accelerate step for frames of up to `maximumFrameCount` samples at `sampleRate`, into `queue`.
    init(sampleRate: Int, maximumFrameCount: Int, queue: PlayoutQueue) {
        stretcher = TimeStretcher(sampleRate: sampleRate, maximumFrameCount: maximumFrameCount)
        self.queue = queue
        output = .allocate(capacity: maximumFrameCount)
        output.initialize(repeating: 0)
    }

    deinit { output.deallocate() }

    /// Shortens `frame` (decoded from `packet`; it is overwritten when more than one period goes)
    /// and queues the result. Returns false, queueing nothing, when the signal has no period it
    /// may remove: the frame is then played as it is.
    func run(_ frame: UnsafeMutableBufferPointer<Int16>, extent: Extent, packet: PacketStore.Slot,
             state: inout PlayoutState, statistics: inout JitterBufferStatistics) -> Bool {
        let count = frame.count
        var written: Int
        switch extent {
        case .periods(let maximumPeriods):
            written = stretcher.accelerate(UnsafeBufferPointer(frame), into: output)
            var periods = 1
            while written < count && periods < maximumPeriods {
                for index in 0..<written { frame[index] = output[index] }
                let shorter = stretcher.accelerate(UnsafeBufferPointer(rebasing: frame[0..<written]), into: output, continuing: true)
                if shorter == written { break }
                written = shorter
                periods += 1
            }
        case .queuedSamples(let limit):
            written = stretcher.accelerate(UnsafeBufferPointer(frame), into: output, maximumPeriod: limit)
        }
        guard written < count else { return false }
        statistics.removedSamplesForAcceleration += count - written
        queue.append(UnsafeBufferPointer(rebasing: output[0..<written]), kind: .accelerate,
                     sequenceNumber: packet.rtpSequenceNumber, arrivalMs: packet.arrivalMs)
        state.finishProduction(.accelerate)
        return true
    }
}
