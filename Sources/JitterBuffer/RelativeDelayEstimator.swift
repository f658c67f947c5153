// SPDX-License-Identifier: Apache-2.0
/// Estimates the delay a packet needs to wait, NetEq-style: each packet's relative arrival
/// delay (its arrival minus its media time, against the fastest packet of the last 2 s, so
/// clock drift is absorbed) goes into a histogram with exponential forgetting. The target is
/// the delay that costs the call least in the E-model's terms (`PlayoutDelayPricing`: the
/// delay impairment of the mouth-to-ear delay it makes, plus the share of packets later than
/// it at the codec's price of loss — or, for a late packet the next packet's in-band FEC
/// rebuilds, `rebuiltLatePacketShare` of that price: `SuccessorPairing`), but never above the
/// `quantile`: on a light-tailed network the quantile bounds the delay (late loss there is
/// cheap in delay, and the E-model would buy the last few tenths of a percent dearly), on a
/// heavy tail or a slow path the delay's own price stops the target from chasing the tail
/// (over the first 150 packets the cap is never the single latest one:
/// `startOutlierPackets`). A new target must rate `hysteresisRating` better than the one it
/// replaces (the cap aside): where a heavy tail leaves the cost nearly
/// flat over a wide span of delays, the histogram's small changes would otherwise move the
/// target, and each move is a stretch the listener hears. No allocation after `init`.
final class RelativeDelayEstimator {
    /// Histogram bucket width in milliseconds.
    static let bucketMs = 2.0
    /// Forgetting per packet once warmed up: a memory of about 1 000 packets (20 s of 20 ms
    /// packets). Long enough that a high quantile does not swing with every burst — each swing
    /// up costs delay that a fixed-delay playout would not pay, which a 60-packet memory
    /// (NetEq's 0.983) does on the G.1050 classes; short enough that a worse network still
    /// raises the target within a few packets (2 % of the weight is 20 packets), while a better
    /// one lowers it over tens of seconds.
    static let forgetFactor = 0.999
    /// Window over which the fastest packet is searched, in milliseconds.
    static let windowMs = 2_000.0
    /// Highest quantile of the relative delay the target may reach: 0.99, measured against
    /// 0.97 and 0.999 in `benchmarks listening` (docs/performance.md, "Listening").
    static let quantile = 0.99
    /// Packets' worth of weight the cap leaves above it while few packets have been seen: 1.5,
    /// so that the cap is never the single latest packet — the `quantile` of a plain average
    /// over n < 100 packets is their maximum, and one delay spike among the first few dozen set
    /// the target (the demo's class B call stretched to a 242 ms target in its first second for
    /// one packet 240 ms late, and took 5 s to come back). From 150 packets on the cap is the
    /// `quantile` itself; two late packets among the first hundred still raise it.
    static let startOutlierPackets = 1.5
    /// How much better (R_WB) a new delay must rate than the current target to replace it:
    /// 1, measured against 0, 0.5, 1.5 and 3 (`benchmarks listening`, the engine's way: on the
    /// 40 ms jitter row time-stretching 5.2 → 3.0 % of ticks and PESQ 2.51 → 2.65, G.1050 D–F
    /// +0.01 to +0.05, A–C unchanged).
    static let hysteresisRating = 1.0

    /// What a late packet that the next packet's in-band FEC rebuilds costs the listener, as a
    /// share of what a concealed one costs: 0.15. On `benchmarks listening`'s 3 % random row
    /// (24 kb/s, 12 seeds) concealing the lost packets cost PESQ-WB 0.90 (3.74 → 2.84, a plan
    /// that coded no FEC), rebuilding them from a 6 % plan's FEC 0.12 (3.22 → 3.10), a share of
    /// 0.13.
    static let rebuiltLatePacketShare = 0.15

    private let histogram: UnsafeMutableBufferPointer<Double>
    /// Packets the next packet's FEC rebuilds when late, as signed weights on the same buckets
    /// and forgetting as `histogram`: a packet of relative delay `d` whose successor carries
    /// FEC and came `s` after its own media time adds its weight at `s` plus a packet's duration
    /// (from that delay on the successor is in time to rebuild it) and takes it away at `d`
    /// (from there it is no longer late). Summed up to a delay, the share of packets late at that
    /// delay that FEC rebuilds. All zero on a stream without FEC.
    private let rebuildable: UnsafeMutableBufferPointer<Double>
    /// Each packet with the one after it, for `rebuildable`.
    private let successors: SuccessorPairing
    /// Whether late packets the next packet's FEC rebuilds are priced as rebuilt (a buffer that
    /// rebuilds them: `LatePacketPolicy.recoverFromFECFirst`) or as concealed.
    private let pricesRebuilds: Bool
    /// The delay impairment (R_WB) of each bucket's upper edge, from the pricing.
    private let delayImpairment: UnsafeMutableBufferPointer<Double>
    /// R_WB points per percent of late packets, from the pricing.
    private let ratingPerLatePercent: Double
    private let windowArrivals: UnsafeMutableBufferPointer<Double>
    private let windowOffsets: UnsafeMutableBufferPointer<Double>
    private var windowNext = 0
    private var windowCount = 0
    /// Packets' worth of history in the histogram: those seen, plus what a learnt start stands for.
    private(set) var packetCount = 0
    /// Packets this estimator has seen itself (a learnt start does not count).
    private(set) var packetsSeen = 0
    /// Smallest arrival-minus-media-time offset in the window: the fastest recent packet, in ms.
    private(set) var minimumOffsetMs = 0.0
    /// The target delay in ms, updated by every packet that enters the histogram: the least
    /// costly delay (see the type's documentation) once it rates `hysteresisRating` better than
    /// the last, capped at the `quantile` (upper edges of 2 ms buckets; 0 before any packet).
    private(set) var targetDelayMs = 0.0
    /// The least costly delay chosen last, before the cap (nil before any packet).
    private var chosenDelayMs: Double?
    /// The target were every late packet concealed (none rebuilt from FEC), in ms: what a run
    /// of late packets needs — a stall's backlog, whose packets' successors are as late as they
    /// are. The same as `targetDelayMs` on a stream without FEC or when rebuilds are not priced.
    private(set) var concealedTargetDelayMs = 0.0
    private var chosenConcealedDelayMs: Double?

    /// How much better a new target must rate (`hysteresisRating` unless a test asks otherwise).
    private let requiredImprovement: Double

    /// An estimator of delays up to `maximumDelayMs` over a window of `windowCapacity` packets,
    /// priced by `pricing`, for packets of `packetDurationMs` of media each; late packets the
    /// next packet's FEC rebuilds priced as rebuilt when `pricesRebuilds`.
    init(maximumDelayMs: Int, windowCapacity: Int, pricing: PlayoutDelayPricing = PlayoutDelayPricing(),
         hysteresisRating: Double = RelativeDelayEstimator.hysteresisRating, packetDurationMs: Double = 20,
         pricesRebuilds: Bool = true) {
        requiredImprovement = hysteresisRating
        self.pricesRebuilds = pricesRebuilds
        histogram = .allocate(capacity: Int(Double(maximumDelayMs) / Self.bucketMs) + 2)
        histogram.initialize(repeating: 0)
        rebuildable = .allocate(capacity: histogram.count)
        rebuildable.initialize(repeating: 0)
        successors = SuccessorPairing(spanMs: Double(maximumDelayMs), packetDurationMs: packetDurationMs)
        delayImpairment = .allocate(capacity: histogram.count)
        delayImpairment.initialize(repeating: 0)
        pricing.fillDelayImpairment(delayImpairment, bucketMs: Self.bucketMs)
        ratingPerLatePercent = pricing.ratingPerLatePercent
        windowArrivals = .allocate(capacity: windowCapacity)
        windowArrivals.initialize(repeating: 0)
        windowOffsets = .allocate(capacity: windowCapacity)
        windowOffsets.initialize(repeating: 0)
    }

    deinit {
        histogram.deallocate()
        rebuildable.deallocate()
        delayImpairment.deallocate()
        windowArrivals.deallocate()
        windowOffsets.deallocate()
    }

    /// Packets' worth of history a learnt distribution stands for (`start(from:)`): the
    /// histogram's memory once warmed up, `1 / (1 − forgetFactor)`, so the first packets of a
    /// call that starts from it weigh as they would in the middle of one.
    static let learntPacketCount = 1_000

    /// Starts from `learnt` (valid: `LearntDelays.isValid`) as if a call on the same path had
    /// just gone on: the histogram takes its shares (beyond the last bucket folded into it) and
    /// the target follows at once. Allocates nothing.
    func start(from learnt: LearntDelays) {
        var total = 0.0
        for weight in learnt.weights { total += weight }
        histogram.update(repeating: 0)
        rebuildable.update(repeating: 0)
        for (index, weight) in learnt.weights.enumerated() {
            histogram[min(index, histogram.count - 1)] += weight / total
        }
        packetCount = Self.learntPacketCount
        chosenDelayMs = nil
        chosenConcealedDelayMs = nil
        updateTarget()
    }

    /// Buckets of the histogram: the most `copyHistogram(into:)` writes.
    var histogramCount: Int { histogram.count }

    /// Copies the histogram learnt so far into the start of `weights` (at least
    /// `histogramCount` long) and returns how many buckets it wrote: 0 before any packet.
    /// Allocates nothing.
    func copyHistogram(into weights: UnsafeMutableBufferPointer<Double>) -> Int {
        guard packetCount > 0 else { return 0 }
        _ = weights.update(fromContentsOf: histogram)
        return histogram.count
    }

    /// Forgets the arrival window (a new stream: its media clock has another origin). The
    /// histogram is kept: the network has not changed.
    func restartStream() {
        windowCount = 0
        windowNext = 0
        successors.reset()
    }

    /// Adds one packet's arrival: `arrivalMs` on the receiver's clock, `mediaTimeMs` its RTP
    /// timestamp in milliseconds, `carriesFEC` whether it carries in-band FEC for the packet
    /// before it. `updatesHistogram` false: only the fastest-packet window learns from it.
    func add(arrivalMs: Double, mediaTimeMs: Double, carriesFEC: Bool = false, updatesHistogram: Bool = true) {
        let offset = arrivalMs - mediaTimeMs
        windowArrivals[windowNext] = arrivalMs
        windowOffsets[windowNext] = offset
        windowNext = (windowNext + 1) % windowArrivals.count
        windowCount = min(windowCount + 1, windowArrivals.count)
        var minimum = offset
        var latest = arrivalMs
        for index in 0..<windowCount { latest = max(latest, windowArrivals[index]) }
        for index in 0..<windowCount where windowArrivals[index] >= latest - Self.windowMs {
            minimum = min(minimum, windowOffsets[index])
        }
        minimumOffsetMs = minimum
        guard updatesHistogram else { return }

        let relative = max(0, offset - minimum)
        let bucket = min(histogram.count - 1, Int(relative / Self.bucketMs))
        packetCount += 1
        packetsSeen += 1
        // Start as a plain average and settle to the forget factor (as NetEq's start weight does).
        let forget = min(Self.forgetFactor, 1 - 1 / Double(packetCount))
        for index in 0..<histogram.count {
            histogram[index] *= forget
            rebuildable[index] *= forget
        }
        histogram[bucket] += 1 - forget
        successors.add(mediaTimeMs: mediaTimeMs, relativeMs: relative, carriesFEC: carriesFEC && pricesRebuilds) { pair in
            countRebuildable(lateMs: pair.lateMs, successorMs: pair.successorMs, weight: 1 - forget)
        }
        updateTarget()
    }

    /// A packet of relative delay `lateMs` is rebuilt by its successor's FEC (relative delay
    /// `successorMs`) at the delays from the successor's arrival, a packet's duration later in
    /// media time, up to its own.
    private func countRebuildable(lateMs: Double, successorMs: Double, weight: Double) {
        let from = min(histogram.count - 1, Int((successorMs + successors.packetDurationMs) / Self.bucketMs))
        let to = min(histogram.count - 1, Int(lateMs / Self.bucketMs))
        guard from < to else { return }
        rebuildable[from] += weight
        rebuildable[to] -= weight
    }

    /// Chooses the target from the histogram (see `targetDelayMs`).
    private func updateTarget() {
        var total = 0.0
        for value in histogram { total += value }
        guard total > 0 else { return }
        var cumulative = 0.0
        var rebuilt = 0.0
        var cap = Double(histogram.count) * Self.bucketMs
        var priced = TargetChoice(chosenDelayMs: chosenDelayMs)
        var concealed = TargetChoice(chosenDelayMs: chosenConcealedDelayMs)
        // While the histogram is a plain average each packet weighs 1/n of it.
        let quantile = min(Self.quantile, 1 - Self.startOutlierPackets / Double(packetCount))
        for index in 0..<histogram.count {
            cumulative += histogram[index]
            rebuilt += rebuildable[index]
            let delay = Double(index + 1) * Self.bucketMs
            let late = max(0, 1 - cumulative / total)
            let rebuiltLate = min(max(0, rebuilt / total), late)
            priced.consider(delay, cost: delayImpairment[index] + ratingPerLatePercent * 100 * (late - (1 - Self.rebuiltLatePacketShare) * rebuiltLate))
            concealed.consider(delay, cost: delayImpairment[index] + ratingPerLatePercent * 100 * late)
            if cap > delay && cumulative >= quantile * total { cap = delay }
        }
        chosenDelayMs = priced.choice(requiredImprovement: requiredImprovement)
        chosenConcealedDelayMs = concealed.choice(requiredImprovement: requiredImprovement)
        targetDelayMs = min(chosenDelayMs ?? 0, cap)
        concealedTargetDelayMs = min(chosenConcealedDelayMs ?? 0, cap)
    }

    /// The least costly delay of a histogram scan, kept unless the best rates
    /// `requiredImprovement` better than the one chosen before.
    private struct TargetChoice {
        var chosenDelayMs: Double?
        var chosenCost = Double.infinity
        var best = 0.0
        var bestCost = Double.infinity

        mutating func consider(_ delay: Double, cost: Double) {
            if cost < bestCost {
                bestCost = cost
                best = delay
            }
            if delay == chosenDelayMs { chosenCost = cost }
        }

        func choice(requiredImprovement: Double) -> Double {
            if let chosenDelayMs, chosenCost - bestCost < requiredImprovement { return chosenDelayMs }
            return best
        }
    }

    /// The relative delay that a fraction `quantile` (0…1) of recent packets stayed within, in
    /// ms (upper edge of its bucket; 0 before any packet).
    func delayMs(atQuantile quantile: Double) -> Double {
        var total = 0.0
        for value in histogram { total += value }
        guard total > 0 else { return 0 }
        var cumulative = 0.0
        for index in 0..<histogram.count {
            cumulative += histogram[index]
            if cumulative >= quantile * total { return Double(index + 1) * Self.bucketMs }
        }
        return Double(histogram.count) * Self.bucketMs
    }
}
