// SPDX-License-Identifier: Apache-2.0
/// What a jitter buffer learnt of a network path: the distribution of its packets' relative
/// delays (each packet's lateness against the fastest recent one), as
/// `AdaptiveJitterBuffer.learntDelays` reads it at the end of a call.
///
/// Handed to the next call on the same path (`JitterBufferConfiguration.learntDelays`), it
/// lets that call start at the delay the path needs instead of learning it during the first
/// words. A buffer that knows nothing starts at `initialDelayMs` and raises its target as late
/// packets show the path's tail. On a heavy-tailed path that climb takes seconds, and each step
/// is a wait or a stretch inside speech (`benchmarks listening`, "after 1st": on G.1050 E the
/// first utterance scores 1.89 where the rest score as the fixed-delay oracle does). The next
/// call's own packets keep teaching it as before, so a path that changed is followed as a
/// steady call follows one.
///
/// Codable, so an app can keep it with the network it was learnt on (a Wi-Fi SSID, a peer).
public struct LearntDelays: Sendable, Equatable, Codable {
    /// Width of each bucket of `weights`, in ms: the estimator's (2).
    public var bucketMs: Double
    /// Each bucket's share of the packets (bucket `i` holds relative delays from `i × bucketMs`
    /// up to the next), with recent packets weighing more. Non-negative, summing to more than
    /// zero; the last bucket also holds everything beyond it.
    public var weights: [Double]
    /// Whether the path had lost a packet recently (within `lossMemoryMs`, 20 s): the next call
    /// then keeps from its start the margin that has the packet after a loss at hand for its
    /// FEC, as the call before did after its losses.
    public var lossWasRecent: Bool

    /// Learnt delays of the given weights per `bucketMs`-wide bucket, on a path that lost a
    /// packet recently or not.
    public init(bucketMs: Double, weights: [Double], lossWasRecent: Bool) {
        self.bucketMs = bucketMs
        self.weights = weights
        self.lossWasRecent = lossWasRecent
    }

    /// The distribution of `weights` (the estimator's buckets, in any scale) normalized to sum
    /// to 1, on a path that lost a packet recently or not; nil when there is no weight (nothing
    /// learnt yet) or their sum is not finite. Allocates its array.
    package init?(normalizing weights: UnsafeBufferPointer<Double>, lossWasRecent: Bool) {
        var total = 0.0
        for weight in weights { total += weight }
        guard total > 0, total.isFinite else { return nil }
        self.init(bucketMs: RelativeDelayEstimator.bucketMs, weights: weights.map { $0 / total }, lossWasRecent: lossWasRecent)
    }

    /// Most buckets a distribution may hold: 10 s of delay, the most a buffer may keep.
    public static let maximumBucketCount = 5_002

    /// Whether a buffer can start from it: `bucketMs` the estimator's, 1 to
    /// `maximumBucketCount` buckets, every weight finite and non-negative, their sum positive.
    package var isValid: Bool {
        guard bucketMs == RelativeDelayEstimator.bucketMs, (1...Self.maximumBucketCount).contains(weights.count) else { return false }
        var total = 0.0
        for weight in weights {
            guard weight.isFinite, weight >= 0 else { return false }
            total += weight
        }
        return total > 0 && total.isFinite
    }
}
