// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import JitterBuffer

/// The target rule: the delay that costs the call least in the E-model's terms, capped at the
/// quantile.
@Suite struct RelativeDelayEstimatorTests {
    /// Feeds `count` packets 20 ms apart whose arrival delays (beyond the fastest) come from `delayMs`.
    static func estimator(count: Int, pricing: PlayoutDelayPricing = PlayoutDelayPricing(),
                          delayMs: (Int) -> Double) -> RelativeDelayEstimator {
        let estimator = RelativeDelayEstimator(maximumDelayMs: 1_000, windowCapacity: 200, pricing: pricing)
        estimator.add(arrivalMs: 0, mediaTimeMs: 0)  // the fastest packet: offset 0
        for index in 1..<count {
            let media = Double(index) * 20
            estimator.add(arrivalMs: media + delayMs(index), mediaTimeMs: media)
            if index % 50 == 0 { estimator.add(arrivalMs: media + 10, mediaTimeMs: media + 10) }  // keep a fastest packet in the 2 s window
        }
        return estimator
    }

    /// One packet 240 ms late among the first 25 (the others within 20 ms) is a spike, not the
    /// network: the target stays with the others (it was 242 ms, the 99th percentile of a plain
    /// average over 25 packets being their maximum). Two such packets among the first 50 are
    /// evidence, and the target covers them; so does the quantile itself from 150 packets on.
    @Test func oneLatePacketAtTheStartDoesNotSetTheTarget() {
        let spike = Self.estimator(count: 25) { $0 == 12 ? 240 : Double($0 % 21) }
        #expect(spike.targetDelayMs <= 22, "target \(spike.targetDelayMs) ms after one spike in 25 packets")
        let two = Self.estimator(count: 50) { $0 == 12 || $0 == 30 ? 240 : Double($0 % 21) }
        #expect(two.targetDelayMs >= 240, "target \(two.targetDelayMs) ms after two spikes in 50 packets")
        let later = Self.estimator(count: 150) { $0 == 12 ? 240 : Double($0 % 21) }
        #expect(later.targetDelayMs <= 22, "one spike in 150 packets is under 1 %: \(later.targetDelayMs) ms")
    }

    /// Light tail (every delay 0–20 ms equally often): each percent of late loss costs little
    /// delay to avoid, so the target is the quantile itself.
    @Test func lightTailTargetsTheQuantile() {
        let estimator = Self.estimator(count: 3_000) { Double($0 % 21) }
        let quantile = estimator.delayMs(atQuantile: RelativeDelayEstimator.quantile)
        #expect(quantile >= 20 && quantile <= 22)
        #expect(estimator.targetDelayMs == quantile)
    }

    /// 97.5 % of packets within 10 ms, 2.5 % spread evenly over 10–500 ms (in a stride, so that
    /// the histogram's memory of about 1 000 packets holds the whole spread): each 10 ms of the
    /// tail covered saves 0.05 % of late packets.
    static func heavyTail(_ index: Int) -> Double {
        index % 40 == 0 ? 10 + Double(((index / 40) * 13) % 50) * 10 : Double(index % 10)
    }

    /// On the default call (Opus at 24 kb/s, 66.5 ms outside the buffer) 0.05 % of late packets
    /// costs 0.72 R_WB, against 0.3 R for 10 ms of delay below G.107's knee and 1.0–1.4 past
    /// it: the target covers the tail up to about 177 ms mouth-to-ear, far below the quantile
    /// (the old price, 1 % late worth 50 ms, stopped at 10 ms).
    @Test func aHeavyTailIsCoveredUpToTheKneeOfTheDelayImpairment() {
        let estimator = Self.estimator(count: 3_000, delayMs: Self.heavyTail)
        #expect(estimator.delayMs(atQuantile: RelativeDelayEstimator.quantile) > 200)
        let mouthToEar = estimator.targetDelayMs + PlayoutDelayPricing().delayOutsideBufferMs
        #expect(mouthToEar >= 150 && mouthToEar <= 215, "target \(estimator.targetDelayMs) ms, \(mouthToEar) ms mouth-to-ear")
    }

    /// The same tail on a path already past the knee (250 ms outside the buffer): every
    /// millisecond costs more than the late packets it saves, so the target stops where the
    /// tail begins.
    @Test func onASlowPathTheTargetStopsWhereTheTailBegins() {
        let pricing = PlayoutDelayPricing(delayOutsideBufferMs: 250)
        let estimator = Self.estimator(count: 3_000, pricing: pricing, delayMs: Self.heavyTail)
        #expect(estimator.targetDelayMs >= 10 && estimator.targetDelayMs <= 14, "target \(estimator.targetDelayMs) ms")
    }

    /// A codec whose concealment hides a lost packet better (G.711 with its waveform
    /// concealment: 3.4 R per percent against Opus's 14.3, so 0.17 R per 10 ms here) buys none
    /// of the tail.
    @Test func aCodecThatConcealsBetterBuysLessDelay() {
        let opus = Self.estimator(count: 3_000, delayMs: Self.heavyTail)
        let g711 = Self.estimator(count: 3_000, pricing: PlayoutDelayPricing(codec: .g711), delayMs: Self.heavyTail)
        #expect(g711.targetDelayMs + 40 <= opus.targetDelayMs, "G.711 \(g711.targetDelayMs) ms, Opus \(opus.targetDelayMs) ms")
    }

    /// A heavy Pareto-like tail leaves the cost nearly flat over a wide span of delays: without
    /// hysteresis the target follows every small change of the histogram (each change a stretch
    /// of the audio); a new target must rate 1 R_WB better.
    @Test func aFlatCostDoesNotMoveTheTargetWithEveryPacket() {
        var generator = SeededGenerator(seed: 11)
        let delays = (0..<6_000).map { _ in 40 / pow(Double.random(in: 0.001...1, using: &generator), 1 / 1.5) - 40 }
        func changes(hysteresis: Double) -> (count: Int, target: Double) {
            let estimator = RelativeDelayEstimator(maximumDelayMs: 1_000, windowCapacity: 200, hysteresisRating: hysteresis)
            estimator.add(arrivalMs: 0, mediaTimeMs: 0)
            var count = 0, last = 0.0
            for index in 1..<delays.count {
                let media = Double(index) * 20
                estimator.add(arrivalMs: media + delays[index], mediaTimeMs: media)
                if index % 50 == 0 { estimator.add(arrivalMs: media, mediaTimeMs: media) }
                if index >= 2_000, estimator.targetDelayMs != last { count += 1 }
                last = estimator.targetDelayMs
            }
            return (count, last)
        }
        let free = changes(hysteresis: 0)
        let held = changes(hysteresis: RelativeDelayEstimator.hysteresisRating)
        // Measured: 31 changes over the last 80 s without hysteresis, 7 with.
        #expect(free.count >= 3 * held.count && held.count <= 10,
                "target changes over 80 s: \(free.count) without hysteresis, \(held.count) with")
        #expect(abs(held.target - free.target) <= 60, "\(held.target) ms held, \(free.target) ms free")
    }

    @Test func nothingIsEstimatedBeforeTheFirstPacket() {
        let estimator = RelativeDelayEstimator(maximumDelayMs: 1_000, windowCapacity: 200)
        #expect(estimator.packetCount == 0)
        #expect(estimator.targetDelayMs == 0)
        #expect(estimator.delayMs(atQuantile: 0.5) == 0)
    }

    /// Relative delay is measured from the fastest packet of the last 2 s, so a constant
    /// network delay (here 40 ms) counts as none, and the fastest packet is forgotten once
    /// it is more than 2 s old.
    @Test func theFastestPacketOfTheLastTwoSecondsIsTheReference() {
        let estimator = RelativeDelayEstimator(maximumDelayMs: 1_000, windowCapacity: 200)
        estimator.add(arrivalMs: 40, mediaTimeMs: 0)
        #expect(estimator.minimumOffsetMs == 40)
        estimator.add(arrivalMs: 20 + 50, mediaTimeMs: 20)  // 10 ms slower
        #expect(estimator.minimumOffsetMs == 40)
        #expect(estimator.delayMs(atQuantile: 1) == 12)  // the 10–12 ms bucket's upper edge
        for index in 2...150 {  // 3 s more, each packet 60 ms behind its media time
            estimator.add(arrivalMs: Double(index) * 20 + 60, mediaTimeMs: Double(index) * 20)
        }
        #expect(estimator.minimumOffsetMs == 60)  // the faster early packets have left the window
        #expect(estimator.packetCount == 151)
    }

    /// A packet kept out of the histogram (the end of a delay spike) still teaches the window.
    @Test func packetsOutsideTheHistogramStillMoveTheFastestReference() {
        let estimator = Self.estimator(count: 500) { Double($0 % 5) }
        let target = estimator.targetDelayMs
        let count = estimator.packetCount
        estimator.add(arrivalMs: 10_000 - 50, mediaTimeMs: 10_000, updatesHistogram: false)  // 50 ms faster than any
        #expect(estimator.packetCount == count)
        #expect(estimator.targetDelayMs == target)
        #expect(estimator.minimumOffsetMs == -50)
    }

    /// A new stream has a new media-time origin: the window restarts, the histogram (what the
    /// network does) is kept.
    @Test func restartingTheStreamKeepsTheHistogram() {
        let estimator = Self.estimator(count: 500) { Double($0 % 30) }
        let target = estimator.targetDelayMs
        estimator.restartStream()
        estimator.add(arrivalMs: 50_000, mediaTimeMs: 7)  // another origin entirely
        #expect(estimator.minimumOffsetMs == 50_000 - 7)
        #expect(abs(estimator.targetDelayMs - target) <= RelativeDelayEstimator.bucketMs)
    }

    /// The histogram forgets: after the network calms from 0–40 ms of jitter to 0–10 ms, the
    /// target follows it down within its memory (about 1 000 packets), not at once.
    @Test func theTargetFollowsABetterNetworkOverItsMemory() {
        let estimator = RelativeDelayEstimator(maximumDelayMs: 1_000, windowCapacity: 200)
        func feed(_ range: Range<Int>, jitter: Int) {
            for index in range {
                let media = Double(index) * 20
                estimator.add(arrivalMs: media + Double((index * 7) % (jitter + 1)), mediaTimeMs: media)
                if index % 50 == 0 { estimator.add(arrivalMs: media + 10, mediaTimeMs: media + 10) }
            }
        }
        feed(0..<3_000, jitter: 40)
        let rough = estimator.targetDelayMs
        feed(3_000..<3_050, jitter: 10)
        let soon = estimator.targetDelayMs
        feed(3_050..<8_000, jitter: 10)
        let calm = estimator.targetDelayMs
        #expect(rough >= 38, "target \(rough) ms on 0–40 ms jitter")
        #expect(soon > calm + 20, "target \(soon) ms 1 s after the change, \(calm) ms after 100 s")
        #expect(calm <= 12, "target \(calm) ms on 0–10 ms jitter")
    }
}

/// FEC in the stream: a late packet whose successor came in time is rebuilt, not concealed.
@Suite struct RebuildableLatePacketTests {
    /// Feeds 3 000 packets 20 ms apart in the order they arrive, every tenth `lateMs` late (the
    /// others within 10 ms), each carrying FEC or not; with `lateSuccessor` the packet after
    /// each late one is as late.
    static func target(carryFEC: Bool, lateSuccessor: Bool, lateMs: Double = 300, pricesRebuilds: Bool = true) -> Double {
        estimator(carryFEC: carryFEC, lateSuccessor: lateSuccessor, lateMs: lateMs, pricesRebuilds: pricesRebuilds).targetDelayMs
    }

    static func estimator(carryFEC: Bool, lateSuccessor: Bool, lateMs: Double = 300, pricesRebuilds: Bool = true) -> RelativeDelayEstimator {
        let estimator = RelativeDelayEstimator(maximumDelayMs: 1_000, windowCapacity: 200, pricesRebuilds: pricesRebuilds)
        let packets = (0..<3_000).map { index -> (arrivalMs: Double, mediaTimeMs: Double) in
            let media = Double(index) * 20
            let isLate = index > 0 && (index % 10 == 0 || (lateSuccessor && index % 10 == 1))
            return (media + (isLate ? lateMs : Double(index % 10)), media)
        }
        for packet in packets.sorted(by: { $0.arrivalMs < $1.arrivalMs }) {
            estimator.add(arrivalMs: packet.arrivalMs, mediaTimeMs: packet.mediaTimeMs, carriesFEC: carryFEC)
        }
        return estimator
    }

    /// 10 % of packets 300 ms late cost more as concealment than 300 ms of delay: the target
    /// waits for them. With FEC in their successors, which came 15 packets before them, they
    /// cost a share (`rebuiltLatePacketShare`) of that, less than the delay: the target stays
    /// low. Late in pairs, FEC rebuilds none of the first of each pair and the target waits again.
    @Test func latePacketsTheSuccessorRebuildsCostLessThanConcealedOnes() {
        let withoutFEC = Self.target(carryFEC: false, lateSuccessor: false)
        let withFEC = Self.target(carryFEC: true, lateSuccessor: false)
        let inPairs = Self.target(carryFEC: true, lateSuccessor: true)
        #expect(withoutFEC >= 300, "without FEC the target waits: \(withoutFEC) ms")
        #expect(withFEC <= 40, "rebuilt from FEC: \(withFEC) ms")
        #expect(inPairs >= 300, "late in pairs: \(inPairs) ms")
    }

    /// 800 ms late: 40 packets arrive between a late one and its successor, and the pair is
    /// still found (the pairing spans the estimator's maximum delay).
    @Test func aPacketFarLateIsStillRebuiltByItsSuccessor() {
        #expect(Self.target(carryFEC: true, lateSuccessor: false, lateMs: 800) <= 40)
        #expect(Self.target(carryFEC: false, lateSuccessor: false, lateMs: 800) >= 300)
    }

    /// A buffer that waits for late packets' own payloads (`LatePacketPolicy.waitForPacket`)
    /// rebuilds none from FEC: priced as concealed, the target waits for them. And beside the
    /// target priced for rebuilds, the one priced for concealment (what a stall's backlog keeps)
    /// waits for them too.
    @Test func aBufferThatRebuildsNothingPricesLatePacketsAsConcealed() {
        #expect(Self.target(carryFEC: true, lateSuccessor: false, pricesRebuilds: false) >= 300)
        let rebuilding = Self.estimator(carryFEC: true, lateSuccessor: false)
        #expect(rebuilding.targetDelayMs <= 40)
        #expect(rebuilding.concealedTargetDelayMs >= 300)
    }
}
