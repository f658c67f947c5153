// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import JitterBuffer
import RTP
import TestSupport

/// Long runs on a virtual clock with a seeded synthetic network: drift, jitter, allocation.
@Suite struct AdaptationTests {
    typealias F = StreamFixture

    /// A network: a sender whose clock runs `ppm` fast (receiver's view), a base delay and
    /// exponentially distributed jitter with the given mean, and random loss.
    static func network(count: Int, ppm: Double, baseMs: Double = 40, jitterMeanMs: Double, lossRate: Double = 0,
                        paretoShape: Double? = nil, talk: Bool = false, seed: UInt64) -> [F.Delivery] {
        var generator = SeededGenerator(seed: seed)
        var deliveries = F.stream(count: count, talk: talk)
        deliveries = deliveries.enumerated().compactMap { index, delivery in
            var delivery = delivery
            let uniform = Double.random(in: Double.ulpOfOne..<1, using: &generator)
            let lost = Double.random(in: 0..<1, using: &generator) < lossRate
            delivery.sendMs = Double(index) * F.frameMs / (1 + ppm * 1e-6)
            // Exponential jitter with the given mean, or Pareto with that scale.
            let jitter = paretoShape.map { jitterMeanMs * pow(uniform, -1 / $0) } ?? -log(uniform) * jitterMeanMs
            delivery.arrivalMs = delivery.sendMs + baseMs + min(500, jitter)
            return lost ? nil : delivery
        }
        return deliveries
    }

    struct Outcome {
        var delays: [(nowMs: Double, delayMs: Double)]
        var statistics: JitterBufferStatistics
        var lateRate: Double { Double(statistics.packetsDiscarded) / Double(max(1, statistics.packetsReceived)) }
        func meanDelay(after ms: Double) -> Double {
            let tail = delays.filter { $0.nowMs >= ms }.map(\.delayMs)
            return tail.reduce(0, +) / Double(max(1, tail.count))
        }
    }

    /// Plays `deliveries` and records each started packet's send→play delay.
    static func play(_ deliveries: [F.Delivery], configuration: JitterBufferConfiguration = .init(), ticks: Int) throws -> Outcome {
        let buffer = try AdaptiveJitterBuffer(configuration: configuration)
        var sendBySequence: [UInt16: Double] = [:]
        for delivery in deliveries {
            sendBySequence[UInt16(delivery.bytes[2]) << 8 | UInt16(delivery.bytes[3])] = delivery.sendMs
        }
        let ticks = F.run(buffer, deliveries: deliveries, ticks: ticks)
        let delays = ticks.compactMap { tick -> (Double, Double)? in
            guard let sequence = tick.event.sequenceNumber, let send = sendBySequence[sequence] else { return nil }
            return (tick.nowMs, tick.nowMs - send)
        }
        return Outcome(delays: delays, statistics: buffer.statistics)
    }

    /// Without stretching, 5 min at ±1000 ppm would move the delay by 300 ms.
    @Test("drift of ±1000 ppm with jitter keeps the delay bounded", arguments: [1_000.0, -1_000.0])
    func driftKeepsLevelBounded(ppm: Double) throws {
        let count = 15_000  // 5 minutes
        let outcome = try Self.play(Self.network(count: count, ppm: ppm, jitterMeanMs: 8, seed: 11), ticks: count)
        let settled = outcome.delays.filter { $0.nowMs >= 10_000 }.map(\.delayMs)
        let firstMinute = outcome.delays.filter { $0.nowMs >= 10_000 && $0.nowMs < 70_000 }.map(\.delayMs)
        let lastMinute = outcome.delays.filter { $0.nowMs >= 240_000 }.map(\.delayMs)
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(1, values.count)) }
        let statistics = outcome.statistics
        let figures: Comment = """
            drift \(ppm) ppm: delay \(settled.min()!)…\(settled.max()!) ms, mean \(mean(firstMinute)) ms in the first minute, \
            \(mean(lastMinute)) ms in the last; late \(outcome.lateRate); removed \(statistics.removedSamplesForAcceleration), \
            inserted \(statistics.insertedSamplesForDeceleration), concealed \(statistics.concealedSamples) samples
            """
        #expect(settled.min()! >= 40, figures)
        #expect(settled.max()! <= 160, figures)
        #expect(abs(mean(lastMinute) - mean(firstMinute)) < 20, figures)
        #expect(outcome.lateRate < 0.03, figures)
    }

    /// On a jitter-free network every drifted sample is absorbed by time-stretching alone.
    @Test("drift of ±1000 ppm without jitter is absorbed by stretching", arguments: [1_000.0, -1_000.0])
    func driftIsAbsorbedByStretching(ppm: Double) throws {
        let count = 6_000  // 2 minutes: 120 ms = 5 760 samples of drift
        var configuration = JitterBufferConfiguration()
        configuration.initialDelayMs = 10  // start near the steady state: count only drift
        let outcome = try Self.play(Self.network(count: count, ppm: ppm, jitterMeanMs: 0, seed: 3),
                                    configuration: configuration, ticks: count - 10)
        let statistics = outcome.statistics
        let net = statistics.removedSamplesForAcceleration - statistics.insertedSamplesForDeceleration
        let settled = outcome.delays.filter { $0.nowMs >= 10_000 }.map(\.delayMs)
        let figures: Comment = """
            drift \(ppm) ppm, no jitter: net \(net) samples removed, delay \(settled.min()!)…\(settled.max()!) ms, \
            concealed \(statistics.concealedSamples) samples
            """
        #expect(statistics.concealedSamples == 0, figures)
        #expect(statistics.packetsDiscarded == 0, figures)
        #expect(abs(abs(Double(net)) - 5_760) < 1_500, figures)
        #expect(ppm > 0 ? net > 0 : net < 0, figures)
        #expect(settled.max()! - settled.min()! < 45, figures)
    }

    /// Plays `deliveries` and compares the mean delay from 5 s on with the fixed-delay oracle:
    /// the fixed delay that loses no more packets late than we did, the (1 − late rate)
    /// quantile of one-way delay — the best any fixed playout delay can do, knowing the whole
    /// network in advance (the benchmark's `FixedDelayOracle`).
    static func againstTheOracle(_ deliveries: [F.Delivery], ticks: Int) throws -> (late: Double, meanMs: Double, oracleMs: Double, outcome: Outcome) {
        let outcome = try play(deliveries, ticks: ticks)
        let oneWay = deliveries.filter { $0.sendMs >= 5_000 }.map { $0.arrivalMs - $0.sendMs }.sorted()
        let late = Double(outcome.statistics.packetsDiscarded) / Double(deliveries.count)
        let oracle = oneWay[min(oneWay.count - 1, Int(Double(oneWay.count) * (1 - late)))]
        return (late, outcome.meanDelay(after: 5_000), oracle, outcome)
    }

    @Test("stationary jitter: near the fixed-delay oracle", arguments: [(5.0, UInt64(5)), (10.0, UInt64(6)), (20.0, UInt64(7))])
    func stationaryJitterApproachesTheOracle(jitterMeanMs: Double, seed: UInt64) throws {
        let count = 3_000  // 1 minute
        let deliveries = Self.network(count: count, ppm: 0, jitterMeanMs: jitterMeanMs, lossRate: 0.01, seed: seed)
        let result = try Self.againstTheOracle(deliveries, ticks: count)
        let statistics = result.outcome.statistics
        let figures: Comment = """
            jitter mean \(jitterMeanMs) ms: delay \(result.meanMs) ms, oracle \(result.oracleMs) ms at late \(result.late); \
            removed \(statistics.removedSamplesForAcceleration), inserted \(statistics.insertedSamplesForDeceleration) samples, \
            \(statistics.concealmentEvents) concealment events
            """
        #expect(result.late < 0.03, figures)
        #expect(result.meanMs <= 1.15 * result.oracleMs + 10, figures)  // + 10 ms: playout moves in 20 ms ticks, the oracle does not
    }

    /// Pareto jitter (tail index 2.5, 5 ms scale) on a 40 ms base with 1 % loss, like the
    /// benchmark's first anchor network (`JitterTraceCatalog.anchorProfiles`), on which
    /// speexdsp's buffer plays 1.10 × the oracle's delay at its own late loss (`benchmarks jitter`).
    @Test func paretoAnchorNetwork() throws {
        let count = 6_000  // 2 minutes
        let deliveries = Self.network(count: count, ppm: 0, jitterMeanMs: 5, lossRate: 0.01, paretoShape: 2.5, seed: 21)
        let result = try Self.againstTheOracle(deliveries, ticks: count)
        let statistics = result.outcome.statistics
        let figures: Comment = """
            pareto(2.5, 5 ms): delay \(result.meanMs) ms at late \(result.late), oracle \(result.oracleMs) ms; \
            \(statistics.concealmentEvents) concealment events, \(statistics.fecPacketsRecovered) FEC recovered
            """
        #expect(result.late < 0.02, figures)
        #expect(result.meanMs <= 1.15 * result.oracleMs + 10, figures)
    }

    /// A delay spike: the network stalls, then delivers the backlog in a burst. Playout waits
    /// through it, drops the backlog beyond six frames above the target (counted late: about
    /// 640 − 120 − the target's 45 ms, 24 packets), and takes out the rest by accelerating in
    /// the talk's next two pauses, once each has lasted 60 ms (voice without pauses: once a
    /// second, so slower).
    @Test(arguments: [true, false])
    func delaySpikeIsWaitedOutThenCaughtUp(talk: Bool) throws {
        let count = 1_500  // 30 s
        var deliveries = Self.network(count: count, ppm: 0, jitterMeanMs: 5, talk: talk, seed: 9)
        for index in deliveries.indices where (10_000..<10_600).contains(deliveries[index].sendMs) {
            deliveries[index].arrivalMs = max(deliveries[index].arrivalMs, 10_640)  // a 640 ms stall
        }
        let outcome = try Self.play(deliveries, ticks: count)
        let statistics = outcome.statistics
        let peak = outcome.delays.map(\.delayMs).max() ?? 0
        let recovered = outcome.delays.first { $0.nowMs > 10_700 && $0.delayMs < 90 }?.nowMs ?? .infinity
        let figures: Comment = """
            spike: peak \(peak) ms, back under 90 ms at \(recovered) ms, \(statistics.packetsDiscarded) late, \
            mean after 5 s \(outcome.meanDelay(after: 5_000)) ms, removed \(statistics.removedSamplesForAcceleration) samples
            """
        #expect((22...26).contains(statistics.packetsDiscarded), figures)  // ± jitter at the edges of the stall
        #expect(recovered < (talk ? 14_000 : 25_000), figures)
        let caughtUp = outcome.delays.first { $0.nowMs > 10_700 && $0.delayMs < 250 }?.nowMs ?? .infinity
        #expect(caughtUp < 10_760, figures)  // at once, not over seconds of accelerated speech
    }

    /// The same on a hostile network, so every decision runs inside the measured window:
    /// reordering (Pareto jitter), loss (FEC rebuilds or waits, by policy), concealment,
    /// merges, accelerate and preemptive expand.
    @Test(arguments: [LatePacketPolicy.recoverFromFECFirst, .waitForPacket])
    func noAllocationOnAJitteryLossyNetwork(policy: LatePacketPolicy) throws {
        var configuration = JitterBufferConfiguration()
        configuration.latePacketPolicy = policy
        let buffer = try AdaptiveJitterBuffer(configuration: configuration)
        let deliveries = Self.network(count: 1_500, ppm: 0, jitterMeanMs: 15, lossRate: 0.03, paretoShape: 1.8, seed: 21)
            .sorted { $0.arrivalMs < $1.arrivalMs }
        var pcm = [Int16](repeating: 0, count: F.frameSamples)
        var next = 0
        func tick(_ index: Int) {
            let now = Double(index) * F.frameMs
            while next < deliveries.count && deliveries[next].arrivalMs <= now {
                deliveries[next].bytes.withUnsafeBytes { raw in
                    if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: deliveries[next].arrivalMs) }
                }
                next += 1
            }
            _ = pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: now) }
        }
        for index in 0..<300 { tick(index) }
        let before = buffer.statistics
        let (_, allocations) = AllocationCounter.measure {
            for index in 300..<1_500 { tick(index) }
        }
        let after = buffer.statistics
        #expect(allocations == 0)
        #expect(after.concealmentEvents > before.concealmentEvents)
        #expect(after.removedSamplesForAcceleration > before.removedSamplesForAcceleration)
        #expect(after.packetsDiscarded > before.packetsDiscarded)
        if policy == .recoverFromFECFirst {
            #expect(after.fecPacketsRecovered > before.fecPacketsRecovered)
        }
    }

    @Test func noAllocationPerInsertAndTick() throws {
        let buffer = try F.fixedDelayBuffer()
        let packets = F.stream(count: 400).map(\.bytes)
        var pcm = [Int16](repeating: 0, count: F.frameSamples)
        func step(_ index: Int) {
            packets[index].withUnsafeBytes { raw in
                if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: Double(index) * 20 + 5) }
            }
            _ = pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: Double(index) * 20 + 45) }
        }
        for index in 0..<100 { step(index) }
        let (_, allocations) = AllocationCounter.measure {
            for index in 100..<400 { step(index) }
        }
        #expect(allocations == 0)
        #expect(buffer.statistics.packetsReceived == 400)
    }
}
