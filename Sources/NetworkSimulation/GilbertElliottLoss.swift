// SPDX-License-Identifier: Apache-2.0
/// Bursty packet loss as a two-state Markov chain (Gilbert–Elliott): a good state and a bad
/// state, each with its own loss probability.
///
/// Per packet the chain first moves (good → bad with probability ``goodToBad``, bad → good
/// with probability ``badToGood``), then the packet is lost with the new state's loss
/// probability. With the classic Gilbert parameters (no loss when good, all lost when bad) the
/// mean loss rate is `p / (p + r)` and the mean burst length is `1 / r` packets.
public struct GilbertElliottLoss: Sendable, Hashable {
    /// Probability of moving from the good to the bad state before a packet (`p`).
    public var goodToBad: Double
    /// Probability of moving from the bad to the good state before a packet (`r`).
    public var badToGood: Double
    /// Loss probability in the good state (`1 − k`).
    public var lossInGood: Double
    /// Loss probability in the bad state (`1 − h`).
    public var lossInBad: Double
    /// Whether the chain is in the bad state now.
    public private(set) var isBad = false

    /// A chain with the given transition and loss probabilities, starting in the good state.
    public init(goodToBad: Double, badToGood: Double, lossInGood: Double = 0, lossInBad: Double = 1) {
        self.goodToBad = goodToBad
        self.badToGood = badToGood
        self.lossInGood = lossInGood
        self.lossInBad = lossInBad
    }

    /// A Gilbert chain (no loss when good, all lost when bad) with the given mean loss rate
    /// (0 ≤ rate < 1) and mean burst length in packets (≥ 1).
    public init(lossRate: Double, meanBurstPackets: Double) {
        let r = 1 / max(meanBurstPackets, 1)
        let rate = min(max(lossRate, 0), 0.999)
        self.init(goodToBad: rate * r / (1 - rate), badToGood: r)
    }

    /// The long-run fraction of packets lost.
    public var stationaryLossRate: Double {
        let total = goodToBad + badToGood
        guard total > 0 else { return isBad ? lossInBad : lossInGood }
        let badShare = goodToBad / total
        return badShare * lossInBad + (1 - badShare) * lossInGood
    }

    /// Advances the chain by one packet; returns whether that packet is lost.
    public mutating func nextIsLost<Generator: RandomNumberGenerator>(using generator: inout Generator) -> Bool {
        let move = Double.random(in: 0..<1, using: &generator)
        if isBad { if move < badToGood { isBad = false } } else if move < goodToBad { isBad = true }
        let lossProbability = isBad ? lossInBad : lossInGood
        guard lossProbability > 0 else { return false }
        return Double.random(in: 0..<1, using: &generator) < lossProbability
    }
}
