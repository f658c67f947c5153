// SPDX-License-Identifier: Apache-2.0
/// The targets docs/performance.md's jitter section sets for ours on one trace: late loss no higher than
/// speexdsp's jitter buffer, mean delay at most 0.9 × speex's, and mean delay at most 1.15 × the
/// fixed-delay oracle's at ours' late loss on a stationary network (1.0 × on the delay-spike
/// trace, where a fixed delay must cover the spikes).
public struct PlayoutTargets: Sendable, Equatable {
    /// Ours' mean delay over speex's, at most.
    public var meanOverSpeex = 0.9
    /// Ours' mean delay over the oracle's delay, at most, on a stationary trace.
    public var meanOverOracle = 1.15
    /// The same on the spike trace.
    public var meanOverOracleWithSpikes = 1.0
    /// Late loss over speex's, at most (1: no more than speex).
    public var lateLossOverSpeex = 1.0

    /// docs/performance.md's targets.
    public init() {}

    /// The oracle bound that applies to `trace`, if any (none on drift or on traces from files).
    public func oracleLimit(for trace: JitterTrace) -> Double? {
        if trace.name == JitterTraceCatalog.spikesName { return meanOverOracleWithSpikes }
        return trace.isStationary ? meanOverOracle : nil
    }

    /// The targets missed on `trace`, as short labels (empty: all met). `lateLoss` is ours in
    /// its mode's accounting; `oracle` is the oracle at that late loss.
    public func misses(on trace: JitterTrace, ours: PlayoutSummary, lateLoss: Double, speex: PlayoutSummary,
                       oracle: FixedDelayOracle) -> [String] {
        var misses: [String] = []
        if lateLoss > lateLossOverSpeex * speex.lateLoss { misses.append("late>speex") }
        if ours.meanDelayMs > meanOverSpeex * speex.meanDelayMs { misses.append("mean>\(meanOverSpeex)×speex") }
        if let limit = oracleLimit(for: trace), ours.meanDelayMs > limit * oracle.delayMs {
            misses.append("mean>\(limit)×oracle")
        }
        return misses
    }
}
