import Opus

/// Expand: one frame of Opus packet-loss concealment, when the audio due is missing.
///
/// Each call conceals 2.5 ms beyond the frame and keeps it as a tail: the next concealment
/// starts with that tail (the decoder's output stays continuous across frames), and the next
/// decoded frame is crossfaded in from it (`MergeOperation`). No allocation after `init`.
final class ExpandOperation {
    /// Whether a concealed frame moves playout through the stream.
    enum Progress: Equatable {
        /// Playout waits where it is (nothing later is stored, or a missing packet is waited
        /// for): the delay grows by a frame.
        case waiting
        /// The frame stands for part of a missing span. Once the span is spent, `next` (the
        /// first packet stored after it, if known) is due.
        case advancing(toward: PacketStore.Slot?)
    }

    /// Samples per concealed frame.
    let samplesPerFrame: Int
    /// The concealed signal just past the last concealed frame (2.5 ms), valid while
    /// `PlayoutState.hasMergeTail` is set.
    var tail: UnsafeBufferPointer<Int16> { UnsafeBufferPointer(mergeTail) }
    private let decoder: OpusDecoder
    private let queue: PlayoutQueue
    private let output: UnsafeMutableBufferPointer<Int16>
    private let mergeTail: UnsafeMutableBufferPointer<Int16>

    /// An expand step concealing with `decoder` into `queue`.
    init(decoder: OpusDecoder, queue: PlayoutQueue, sampleRate: Int, samplesPerFrame: Int) {
        self.decoder = decoder
        self.queue = queue
        self.samplesPerFrame = samplesPerFrame
        mergeTail = .allocate(capacity: sampleRate / 400)  // 2.5 ms: the shortest Opus concealment step
        mergeTail.initialize(repeating: 0)
        output = .allocate(capacity: samplesPerFrame + mergeTail.count)
        output.initialize(repeating: 0)
    }

    deinit {
        output.deallocate()
        mergeTail.deallocate()
    }

    /// Conceals one frame into the queue (silence if the decoder cannot conceal) and books it.
    func run(_ progress: Progress, state: inout PlayoutState, statistics: inout JitterBufferStatistics) {
        let tailCount = mergeTail.count
        let produced: Int
        if state.hasMergeTail {
            // Keep the decoder's output continuous: first the tail concealed last time.
            for index in 0..<tailCount { output[index] = mergeTail[index] }
            produced = (try? decoder.conceal(into: UnsafeMutableBufferPointer(rebasing: output[tailCount..<(tailCount + samplesPerFrame)]))) ?? 0
            if produced < samplesPerFrame { output.update(repeating: 0) }
        } else {
            produced = (try? decoder.conceal(into: UnsafeMutableBufferPointer(rebasing: output[0..<(samplesPerFrame + tailCount)]))) ?? 0
            if produced < samplesPerFrame + tailCount { output.update(repeating: 0) }
        }
        for index in 0..<tailCount { mergeTail[index] = output[samplesPerFrame + index] }
        if state.expandedSamples == 0 && state.lastKind != .expand { statistics.concealmentEvents += 1 }
        statistics.concealedSamples += samplesPerFrame
        queue.append(UnsafeBufferPointer(rebasing: output[0..<samplesPerFrame]), kind: .expand, sequenceNumber: nil, arrivalMs: nil)
        state.lastKind = .expand
        state.hasMergeTail = true
        state.expandedSamples += samplesPerFrame
        switch progress {
        case .waiting:
            state.waitedSamples += samplesPerFrame
        case .advancing(let next):
            state.nextTimestamp += Int64(samplesPerFrame)
            if let next, state.nextTimestamp >= next.timestamp {
                state.move(toSequence: next.sequence, timestamp: next.timestamp)  // the span is concealed: `next` merges in
            }
        }
    }
}
