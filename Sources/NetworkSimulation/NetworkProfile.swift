// SPDX-License-Identifier: Apache-2.0
/// The impairments of one network path, for ``NetworkSimulator``.
///
/// The classes ``classA`` … ``classH`` follow the core-network impairment severity classes A–H
/// of ITU-T G.1050 (11/2007), *Network model for evaluating multimedia transmission performance
/// over Internet Protocol*: one-way core delay range, loss, jitter and outages per class. Here
/// the loss is isolated (Gilbert–Elliott, mean burst 1.5 packets) and the jitter Pareto
/// (shape 2.5) with the class's jitter as its mean;
/// ``withBurstyLoss(goodToBad:badToGood:)``, ``withDelaySpikes(perMinute:durationMs:)`` and
/// ``withClockDrift(ppm:)`` add the last-mile Wi-Fi/LTE effects.
public struct NetworkProfile: Sendable, Hashable {
    /// A short name, e.g. `"C"` or `"C+spikes"`.
    public var name: String
    /// Range of the fixed one-way delay; a trace draws one value from it.
    public var baseDelayMs: ClosedRange<Double>
    /// Per-packet loss (Gilbert–Elliott), before outages.
    public var loss: GilbertElliottLoss
    /// Per-packet queueing delay added to the base delay.
    public var jitter: ParetoJitter
    /// Probability that a packet takes a slower route and is overtaken by later packets.
    public var reorderProbability: Double
    /// Length of one outage (every packet sent during it is lost); 0 for none.
    public var outageDurationMs: Double
    /// Mean time between outage starts (Poisson), in milliseconds.
    public var outageIntervalMs: Double
    /// Mean number of delay spikes per minute (Poisson); 0 for none.
    public var spikesPerMinute: Double
    /// Range of a spike's stall: nothing arrives for this long, then the held packets arrive
    /// in a burst.
    public var spikeDurationMs: ClosedRange<Double>
    /// Receiver clock rate error against the sender's, in parts per million (positive: the
    /// receiver's clock runs fast, so arrival times stretch).
    public var clockDriftPpm: Double

    /// A profile with every impairment given explicitly.
    public init(
        name: String, baseDelayMs: ClosedRange<Double>, loss: GilbertElliottLoss, jitter: ParetoJitter,
        reorderProbability: Double = 0, outageDurationMs: Double = 0, outageIntervalMs: Double = .infinity,
        spikesPerMinute: Double = 0, spikeDurationMs: ClosedRange<Double> = 300...1_000, clockDriftPpm: Double = 0
    ) {
        self.name = name
        self.baseDelayMs = baseDelayMs
        self.loss = loss
        self.jitter = jitter
        self.reorderProbability = reorderProbability
        self.outageDurationMs = outageDurationMs
        self.outageIntervalMs = outageIntervalMs
        self.spikesPerMinute = spikesPerMinute
        self.spikeDurationMs = spikeDurationMs
        self.clockDriftPpm = clockDriftPpm
    }

    /// A G.1050-style class: loss as isolated losses (mean burst 1.5 packets), Pareto jitter
    /// of shape 2.5 whose mean is `jitterMs`, outages of `outageMs` every `outageEveryMs`.
    static func g1050(
        _ name: String, delay: ClosedRange<Double>, lossPercent: Double, jitterMs: Double,
        outageMs: Double, outageEveryMs: Double, reorder: Double = 0
    ) -> NetworkProfile {
        NetworkProfile(
            name: name, baseDelayMs: delay,
            loss: GilbertElliottLoss(lossRate: lossPercent / 100, meanBurstPackets: 1.5),
            jitter: ParetoJitter(meanMs: jitterMs), reorderProbability: reorder,
            outageDurationMs: outageMs, outageIntervalMs: outageMs > 0 ? outageEveryMs : .infinity)
    }

    /// Class A: 4–16 ms, no loss, 5 ms jitter, no outages.
    public static let classA = g1050("A", delay: 4...16, lossPercent: 0, jitterMs: 5, outageMs: 0, outageEveryMs: 0)
    /// Class B: 8–32 ms, 0.01% loss, 10 ms jitter, 64 ms outage per hour.
    public static let classB = g1050("B", delay: 8...32, lossPercent: 0.01, jitterMs: 10, outageMs: 64, outageEveryMs: 3_600_000)
    /// Class C: 16–64 ms, 0.02% loss, 16 ms jitter, 128 ms outage per 30 min.
    public static let classC = g1050("C", delay: 16...64, lossPercent: 0.02, jitterMs: 16, outageMs: 128, outageEveryMs: 1_800_000)
    /// Class D: 32–128 ms, 0.04% loss, 40 ms jitter, 256 ms outage per 15 min.
    public static let classD = g1050("D", delay: 32...128, lossPercent: 0.04, jitterMs: 40, outageMs: 256, outageEveryMs: 900_000)
    /// Class E: 64–196 ms, 0.1% loss, 70 ms jitter, 0.4 s outage per 8 min.
    public static let classE = g1050("E", delay: 64...196, lossPercent: 0.1, jitterMs: 70, outageMs: 400, outageEveryMs: 480_000)
    /// Class F: 128–256 ms, 0.2% loss, 100 ms jitter, 0.8 s outage per 4 min.
    public static let classF = g1050("F", delay: 128...256, lossPercent: 0.2, jitterMs: 100, outageMs: 800, outageEveryMs: 240_000)
    /// Class G: 256–512 ms, 0.5% loss, 150 ms jitter, 1.6 s outage per 2 min.
    public static let classG = g1050("G", delay: 256...512, lossPercent: 0.5, jitterMs: 150, outageMs: 1_600, outageEveryMs: 120_000)
    /// Class H: 512–768 ms, 1% loss and 1% reordering, 500 ms jitter, 3 s outage per minute.
    public static let classH = g1050("H", delay: 512...768, lossPercent: 1, jitterMs: 500, outageMs: 3_000, outageEveryMs: 60_000, reorder: 0.01)

    /// The eight classes in order of severity.
    public static let g1050Classes: [NetworkProfile] = [classA, classB, classC, classD, classE, classF, classG, classH]

    /// The class named `name` (`"A"` … `"H"`, any case), or nil.
    public static func g1050Class(named name: String) -> NetworkProfile? {
        g1050Classes.first { $0.name == name.uppercased() }
    }

    /// This profile with Wi-Fi/LTE-style bursty loss (defaults: p = 0.05, r = 0.5, about 9%
    /// loss in bursts of 2 packets on average) in place of its own loss.
    public func withBurstyLoss(goodToBad: Double = 0.05, badToGood: Double = 0.5) -> NetworkProfile {
        var copy = self
        copy.name += "+bursty"
        copy.loss = GilbertElliottLoss(goodToBad: goodToBad, badToGood: badToGood)
        return copy
    }

    /// This profile with delay spikes: `perMinute` stalls on average, each lasting a duration
    /// drawn from `durationMs`, after which the held packets arrive in a burst.
    public func withDelaySpikes(perMinute: Double = 2, durationMs: ClosedRange<Double> = 300...1_000) -> NetworkProfile {
        var copy = self
        copy.name += "+spikes"
        copy.spikesPerMinute = perMinute
        copy.spikeDurationMs = durationMs
        return copy
    }

    /// This profile with the receiver's clock off by `ppm` parts per million.
    public func withClockDrift(ppm: Double) -> NetworkProfile {
        var copy = self
        copy.name += "+drift"
        copy.clockDriftPpm = ppm
        return copy
    }
}
