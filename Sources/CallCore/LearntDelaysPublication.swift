// SPDX-License-Identifier: Apache-2.0
import JitterBuffer
import Locking

/// What a call's jitter buffer has learnt of its path (`LearntDelays`), copied by the audio
/// side about once a second for `CallMedia.learntDelays` to read from any thread, during the
/// call or after it.
///
/// The copy lives in storage allocated here, at the call's creation, and the audio side fills it
/// only if no reader holds the lock (`withLockIfAvailable`): it never waits, allocates or
/// frees. The reader builds the `LearntDelays` value (which allocates) on its own thread.
final class LearntDelaysPublication: Sendable {
    /// Audio time between two copies, in ms: the histogram forgets over about 20 s, so a
    /// second's lag loses nothing a next call would use.
    static let intervalMs = 1_000.0

    /// The copy: the estimator's weights as last published and the path's recent loss.
    private struct Copy: ~Copyable {
        let weights: UnsafeMutableBufferPointer<Double>
        var weightCount = 0
        var lossWasRecent = false

        init(capacity: Int) {
            weights = .allocate(capacity: capacity)
            weights.initialize(repeating: 0)
        }

        deinit { weights.deallocate() }
    }

    private let copy: Locked<Copy>

    /// Storage for the weights of a buffer whose `learntDelaysCapacity` is `capacity`.
    init(capacity: Int) {
        copy = Locked(Copy(capacity: capacity))
    }

    /// Audio side: copies what `buffer` has learnt unless a reader holds the lock right now;
    /// returns whether it did. Real-time safe.
    @discardableResult
    func publishIfAvailable(from buffer: AdaptiveJitterBuffer) -> Bool {
        copy.withLockIfAvailable { (copy: inout Copy) -> Void in
            let copied = buffer.copyLearntDelays(into: copy.weights)
            copy.weightCount = copied.weightCount
            copy.lossWasRecent = copied.lossWasRecent
        } != nil
    }

    /// What was last published (nil before the audio side published anything learnt).
    /// Allocates the value's array.
    var learntDelays: LearntDelays? {
        copy.withLock { copy in
            LearntDelays(normalizing: UnsafeBufferPointer(rebasing: copy.weights[..<copy.weightCount]),
                         lossWasRecent: copy.lossWasRecent)
        }
    }
}
