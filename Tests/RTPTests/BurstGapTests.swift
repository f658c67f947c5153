// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing
import TestSupport

/// RFC 3611 §4.7.2 burst and gap metrics on constructed sequences whose bursts and gaps are
/// known by hand, and the tracker that puts arrivals into sequence order.
@Suite("Burst and gap metrics")
struct BurstGapTests {
    /// `pattern` as outcomes: `.` received, `x` lost, `d` discarded; spaces ignored.
    static func outcomes(_ pattern: String) -> [BurstGapStatistics.Outcome] {
        pattern.compactMap { character in
            switch character {
            case ".": .received
            case "x": .lost
            case "d": .discarded
            default: nil
            }
        }
    }

    static func statistics(_ pattern: String, gapThreshold: Int = 16) -> BurstGapStatistics {
        var statistics = BurstGapStatistics(gapThreshold: gapThreshold)
        for outcome in outcomes(pattern) { statistics.record(outcome) }
        return statistics
    }

    static func received(_ count: Int) -> String { String(repeating: ".", count: count) }

    @Test func aCleanStreamIsOneGap() {
        let clean = Self.statistics(Self.received(100))
        #expect(clean.burstCount == 0 && clean.gapCount == 1)
        #expect(clean.meanGapLength == 100 && clean.gapDensity == 0 && clean.burstDensity == 0)
        #expect(clean.burstRatio == 1)
        let empty = BurstGapStatistics()
        #expect(empty.gapCount == 0 && empty.meanGapLength == 0 && empty.burstRatio == 1)
    }

    @Test func isolatedLossesStayInTheGap() {
        // Each loss has at least 16 received packets on both sides.
        let isolated = Self.statistics(Self.received(20) + "x" + Self.received(16) + "d" + Self.received(20))
        #expect(isolated.burstCount == 0 && isolated.gapCount == 1)
        #expect(isolated.gapDensity == 2.0 / 58)
        #expect(isolated.lostCount == 1 && isolated.discardedCount == 1)
        // A loss at the very start counts as preceded by Gmin received packets.
        let first = Self.statistics("x" + Self.received(30))
        #expect(first.burstCount == 0 && first.gapDensity == 1.0 / 31)
    }

    @Test func aBurstIsBoundedByImpairedPacketsWithFewerThanGminReceivedBetween() {
        // 30 received, a burst `x.x..d` (6 packets, 3 impaired), 30 received.
        let one = Self.statistics(Self.received(30) + "x.x..d" + Self.received(30))
        #expect(one.burstCount == 1 && one.gapCount == 2)
        #expect(one.meanBurstLength == 6 && one.burstDensity == 0.5)
        #expect(one.meanGapLength == 30 && one.gapDensity == 0)
        // Gmin is the boundary: 15 received between two losses keep them in one burst, 16 split them.
        let fifteen = Self.statistics(Self.received(20) + "x" + Self.received(15) + "x" + Self.received(20))
        #expect(fifteen.burstCount == 1 && fifteen.meanBurstLength == 17 && fifteen.burstDensity == 2.0 / 17)
        let sixteen = Self.statistics(Self.received(20) + "x" + Self.received(16) + "x" + Self.received(20))
        #expect(sixteen.burstCount == 0 && sixteen.gapDensity == 2.0 / 58)
        // With Gmin 4 the 15 apart are isolated too.
        let smallGmin = Self.statistics(Self.received(20) + "x" + Self.received(15) + "x" + Self.received(20), gapThreshold: 4)
        #expect(smallGmin.burstCount == 0)
    }

    @Test func severalBurstsAndGapsAverage() {
        // Gap 40 (with one isolated loss), burst "xx" (2/2), gap 20, burst "x...x.x" (3/7),
        // gap 16, burst "ddd" (3/3), gap 50.
        let pattern = Self.received(20) + "x" + Self.received(19) + "xx" + Self.received(20) + "x...x.x" + Self.received(16) + "ddd"
            + Self.received(50)
        let statistics = Self.statistics(pattern)
        #expect(statistics.burstCount == 3 && statistics.gapCount == 4)
        #expect(statistics.meanBurstLength == 12.0 / 3)
        #expect(statistics.burstDensity == 8.0 / 12)
        #expect(statistics.meanGapLength == Double(40 + 20 + 16 + 50) / 4)
        #expect(statistics.gapDensity == 1.0 / 126)
        #expect(statistics.packetCount == 138 && statistics.lostCount == 6 && statistics.discardedCount == 3)
    }

    @Test func theStreamReadsAsIfItEndedNowWithoutChangingWhatFollows() {
        var statistics = Self.statistics(Self.received(30) + "x...x")
        // Now: the open burst counts as followed by Gmin received packets.
        #expect(statistics.burstCount == 1 && statistics.meanBurstLength == 5 && statistics.gapCount == 1)
        // The burst goes on.
        for outcome in Self.outcomes("..x" + Self.received(40)) { statistics.record(outcome) }
        #expect(statistics.burstCount == 1 && statistics.meanBurstLength == 8 && statistics.burstDensity == 3.0 / 8)
        #expect(statistics.gapCount == 2 && statistics.meanGapLength == 35)
        // A burst still open at the end: "x" then "x" 3 later.
        let trailing = Self.statistics("xx")
        #expect(trailing.burstCount == 1 && trailing.gapCount == 0 && trailing.burstDensity == 1)
    }

    @Test func burstRatioIsOneForRandomLossAndOneOverPPlusQForAGilbertChain() {
        var generator = SeededGenerator(seed: 11)
        var random = BurstGapStatistics()
        for _ in 0..<200_000 { random.record(Double.random(in: 0..<1, using: &generator) < 0.1 ? .lost : .received) }
        #expect(abs(random.burstRatio - 1) < 0.03, "Bernoulli 10 %: \(random.burstRatio)")
        // p = P(loss | received) = 0.02, q = P(received | loss) = 0.3: BurstR = 1 / (p + q) = 3.125.
        var bursty = BurstGapStatistics()
        var losing = false
        for _ in 0..<400_000 {
            let draw = Double.random(in: 0..<1, using: &generator)
            losing = losing ? draw >= 0.3 : draw < 0.02
            bursty.record(losing ? .lost : .received)
        }
        #expect(abs(bursty.burstRatio - 3.125) < 0.15, "Gilbert p 0.02 q 0.3: \(bursty.burstRatio)")
    }

    /// RFC 3611 Appendix A.2's Markov-model estimate, as printed there, for comparison.
    struct AppendixA2 {
        var lost = 0, pkt = 0, c11 = 0, c13 = 0, c14 = 0, c22 = 0, c23 = 0, c33 = 0
        let gmin = 16
        mutating func record(_ outcome: BurstGapStatistics.Outcome) {
            if outcome == .received {
                pkt += 1
                return
            }
            if pkt >= gmin {
                if lost == 1 { c14 += 1 } else { c13 += 1 }
                lost = 1
                c11 += pkt
            } else {
                lost += 1
                if pkt == 0 { c33 += 1 } else { c23 += 1; c22 += pkt - 1 }
            }
            pkt = 0
        }
        var densities: (burst: Double, gap: Double) {
            let c31 = Double(c13), c32 = Double(c23)
            let p32 = c32 / (c31 + c32 + Double(c33))
            let p23 = c22 + c23 < 1 ? 1 : 1 - Double(c22) / Double(c22 + c23)
            return (p23 / (p23 + p32), Double(c14) / Double(c11 + c14))
        }
    }

    @Test func densitiesAgreeWithTheRFCsMarkovEstimateOnBurstyLoss() {
        var generator = SeededGenerator(seed: 12)
        var exact = BurstGapStatistics()
        var markov = AppendixA2()
        var state = 0  // 0: gap, 1: burst
        for _ in 0..<300_000 {
            // Rare isolated losses in gaps, dense loss in bursts of ~10 packets every ~500.
            let draw = Double.random(in: 0..<1, using: &generator)
            state = state == 0 ? (draw < 0.002 ? 1 : 0) : (draw < 0.1 ? 0 : 1)
            let loss = Double.random(in: 0..<1, using: &generator) < (state == 1 ? 0.6 : 0.001)
            exact.record(loss ? .lost : .received)
            markov.record(loss ? .lost : .received)
        }
        let estimate = markov.densities
        #expect(abs(exact.burstDensity - estimate.burst) < 0.05, "burst density: exact \(exact.burstDensity), A.2 \(estimate.burst)")
        #expect(abs(exact.gapDensity - estimate.gap) < 0.0005, "gap density: exact \(exact.gapDensity), A.2 \(estimate.gap)")
    }

    @Test func gapThresholdIsClampedToTheField() {
        #expect(BurstGapStatistics(gapThreshold: 0).gapThreshold == 1)
        #expect(BurstGapStatistics(gapThreshold: 1_000).gapThreshold == 255)
        #expect(BurstGapStatistics(gapThreshold: .min).gapThreshold == 1)
    }
}

@Suite("Burst and gap tracker")
struct BurstGapTrackerTests {
    /// Feeds `pattern` (`.` received, `x` lost, `d` discarded) from `first` on, in sequence
    /// order, to a tracker.
    static func inOrder(_ pattern: String, first: UInt16 = 100) -> BurstGapTracker {
        var tracker = BurstGapTracker()
        for (index, outcome) in BurstGapTests.outcomes(pattern).enumerated() where outcome != .lost {
            tracker.record(sequenceNumber: first &+ UInt16(index), discarded: outcome == .discarded)
        }
        return tracker
    }

    static let pattern = String(repeating: ".", count: 30) + "x.x..d" + String(repeating: ".", count: 100) + "xxd" + String(repeating: ".", count: 40)

    @Test func inOrderArrivalsGiveTheSameFiguresAsTheSequence() {
        let direct = BurstGapTests.statistics(Self.pattern)
        let tracked = Self.inOrder(Self.pattern).statistics
        #expect(tracked == direct)
        // Across the 16-bit wrap.
        #expect(Self.inOrder(Self.pattern, first: 65_500).statistics == direct)
    }

    @Test func reorderingWithinTheWindowIsCountedWhereItBelongs() {
        let outcomes = BurstGapTests.outcomes(Self.pattern)
        var arrivals = outcomes.indices.filter { outcomes[$0] != .lost }
        // Swap neighbours, and move one packet 40 places later.
        for index in stride(from: 0, to: arrivals.count - 1, by: 7) { arrivals.swapAt(index, index + 1) }
        let moved = arrivals.remove(at: 50)
        arrivals.insert(moved, at: 90)
        var tracker = BurstGapTracker()
        for index in arrivals { tracker.record(sequenceNumber: UInt16(index), discarded: outcomes[index] == .discarded) }
        #expect(tracker.statistics == BurstGapTests.statistics(Self.pattern))
    }

    @Test func packetsLaterThanTheWindowStayLostAndMissingOnesCountAsLostUntilTheyCome() {
        var tracker = BurstGapTracker()
        for sequence in 1..<200 where sequence != 10 { tracker.record(sequenceNumber: UInt16(sequence), discarded: false) }
        tracker.record(sequenceNumber: 10, discarded: true)  // 190 packets late: decided long ago
        #expect(tracker.statistics.lostCount == 1 && tracker.statistics.discardedCount == 0)
        // A missing packet inside the window counts as lost now, and as received once it comes.
        tracker.record(sequenceNumber: 201, discarded: false)
        #expect(tracker.statistics.lostCount == 2)
        tracker.record(sequenceNumber: 200, discarded: false)
        #expect(tracker.statistics.lostCount == 1 && tracker.statistics.packetCount == 201)
        // A played copy wins over a discarded one.
        tracker.record(sequenceNumber: 200, discarded: true)
        #expect(tracker.statistics.discardedCount == 0)
    }

    @Test func aLargeJumpStartsANewSequenceInsteadOfCountingThousandsLost() {
        var tracker = BurstGapTracker()
        for sequence in 0..<50 { tracker.record(sequenceNumber: UInt16(sequence), discarded: false) }
        for sequence in 40_000..<40_050 { tracker.record(sequenceNumber: UInt16(sequence), discarded: false) }
        #expect(tracker.statistics.lostCount == 0 && tracker.statistics.packetCount == 100)
        tracker.startNewSequence()
        tracker.record(sequenceNumber: 7, discarded: false)
        #expect(tracker.statistics.packetCount == 101)
        // A jump within the limit is loss.
        tracker.record(sequenceNumber: 2_007, discarded: false)
        #expect(tracker.statistics.lostCount == 1_999)
    }
}
