// SPDX-License-Identifier: Apache-2.0
import AudioCodecs

/// Expand: one frame of Opus packet-loss concealment, when the audio due is missing.
///
/// It conceals exactly the frame, nothing beyond: the decoder's own state then continues from
/// where the listener is, so the next concealed frame is its continuation and the next decoded
/// packet is joined to the concealment by libopus itself (what a receiver calling libopus
/// directly plays). No allocation after `init`.
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
    /// The active decoder conceals or decodes (the one that played last).
    private let decoders: PayloadDecoders
    private let queue: PlayoutQueue
    private let output: UnsafeMutableBufferPointer<Int16>

    /// An expand step concealing with the active decoder of `decoders` into `queue`.
    init(decoders: PayloadDecoders, queue: PlayoutQueue, sampleRate: Int, samplesPerFrame: Int) {
        self.decoders = decoders
        self.queue = queue
        self.samplesPerFrame = samplesPerFrame
        output = .allocate(capacity: samplesPerFrame)
        output.initialize(repeating: 0)
    }

    deinit { output.deallocate() }

    /// Conceals one frame into the queue (silence if the decoder cannot conceal) and books it;
    /// `inSilence`: the stream has long been quiet (the concealment may be of silence).
    func run(_ progress: Progress, inSilence: Bool, state: inout PlayoutState, statistics: inout JitterBufferStatistics) {
        let produced = (try? decoders.active.conceal(into: output)) ?? 0
        if produced < samplesPerFrame { output.update(repeating: 0) }
        if state.expandedSamples == 0 && state.lastKind != .expand { statistics.concealmentEvents += 1 }
        statistics.concealedSamples += samplesPerFrame
        if inSilence { state.concealedInSilenceSamples += samplesPerFrame }
        queue.append(UnsafeBufferPointer(output), kind: .expand, sequenceNumber: nil, arrivalMs: nil)
        state.lastKind = .expand
        state.followsConcealment = true
        state.expandedSamples += samplesPerFrame
        switch progress {
        case .waiting:
            state.waitedSamples += samplesPerFrame
        case .advancing(let next):
            state.nextTimestamp += Int64(samplesPerFrame)
            if let next, state.nextTimestamp >= next.timestamp {
                state.move(toSequence: next.sequence, timestamp: next.timestamp)  // the span is concealed: `next` follows
            }
        }
    }
}
