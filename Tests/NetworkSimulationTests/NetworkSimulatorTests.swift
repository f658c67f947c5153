// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Testing
import TestSupport

@Suite struct NetworkSimulatorTests {
    private func trace(_ profile: NetworkProfile, packets: Int = 15_000, seed: UInt64 = 42) -> NetworkTrace {
        var generator = SeededGenerator(seed: seed)
        return NetworkSimulator(profile: profile).trace(packetCount: packets, packetIntervalMs: 20, using: &generator)
    }

    @Test func sameSeedSameTraceOtherSeedOtherTrace() {
        let profile = NetworkProfile.classD.withDelaySpikes().withBurstyLoss()
        #expect(trace(profile, packets: 2_000) == trace(profile, packets: 2_000))
        #expect(trace(profile, packets: 2_000) != trace(profile, packets: 2_000, seed: 43))
    }

    @Test func sendTimesAreTheStreamClock() {
        let packets = trace(.classB, packets: 100).packets
        #expect(packets.map(\.sequence) == Array(0..<100))
        #expect(packets.map(\.sendMs) == (0..<100).map { Double($0) * 20 })
    }

    @Test(arguments: ["A", "C", "E", "F"])
    func delaysMatchTheClass(name: String) throws {
        let profile = try #require(NetworkProfile.g1050Class(named: name))
        let trace = trace(profile)
        let delays = trace.delaysMs.sorted()
        let minimum = delays[0]
        // The fastest packet sees (nearly) only the base delay, which lies in the class range.
        #expect(minimum >= profile.baseDelayMs.lowerBound && minimum <= profile.baseDelayMs.upperBound + 1)
        // Queueing delay above the fastest packet follows the class's Pareto jitter.
        let queueing = delays.map { $0 - minimum }
        let mean = queueing.reduce(0, +) / Double(queueing.count)
        #expect(abs(mean - profile.jitter.meanMs) < profile.jitter.meanMs * 0.1)
        for probability in [0.5, 0.9, 0.99] {
            let expected = profile.jitter.quantileMs(probability)
            #expect(abs(queueing[Int(probability * Double(queueing.count))] - expected) < expected * 0.1 + 0.5)
        }
    }

    @Test func lossMatchesTheProfileWithoutOutages() {
        let bursty = trace(NetworkProfile.classA.withBurstyLoss(), packets: 30_000)
        #expect(abs(bursty.lossRate - 0.05 / 0.55) < 0.01)
        #expect(trace(.classA).lossRate == 0)
    }

    @Test func slowRouteReordersAtTheGivenRate() {
        var profile = NetworkProfile.classH
        profile.outageDurationMs = 0
        profile.jitter = ParetoJitter(shape: 2.5, scaleMs: 0)  // only the slow route reorders
        let trace = trace(profile, packets: 30_000)
        #expect(abs(trace.lossRate - 0.01) < 0.003)
        #expect(abs(trace.reorderedRate - 0.01) < 0.003)
    }

    @Test func outagesLoseEveryPacketInside() {
        var profile = NetworkProfile.classA
        profile.outageDurationMs = 400
        profile.outageIntervalMs = 10_000
        let trace = trace(profile)  // 300 s: about 30 outages of 20 packets
        var runs: [Int] = []
        var run = 0
        for packet in trace.packets {
            if packet.arrivalMs == nil { run += 1 } else if run > 0 { runs.append(run); run = 0 }
        }
        #expect(runs.count >= 15 && runs.count <= 50)
        #expect(runs.allSatisfy { $0 == 20 || $0 == 21 })
    }

    @Test func delaySpikeStallsThenDeliversABurst() {
        let profile = NetworkProfile.classA.withDelaySpikes(perMinute: 4, durationMs: 300...1_000)
        let trace = trace(profile, packets: 6_000)  // 120 s
        let arrivals = trace.arrivals.compactMap(\.arrivalMs)
        let gaps = zip(arrivals.dropFirst(), arrivals).map { $0 - $1 }
        let stalls = gaps.filter { $0 >= 280 }
        #expect(stalls.count >= 3 && stalls.count <= 16)
        #expect(stalls.allSatisfy { $0 <= 1_060 })
        // After a stall, the held packets come back to back.
        for (index, gap) in gaps.enumerated() where gap >= 280 && index + 5 < gaps.count {
            #expect(gaps[(index + 1)...(index + 5)].allSatisfy { $0 <= NetworkSimulator.burstSpacingMs + 1e-9 })
        }
        #expect(trace.delaysMs.max()! > 300)
    }

    @Test(arguments: [1_000.0, -500.0])
    func clockDriftIsALinearTrendInDelay(ppm: Double) {
        let trace = trace(NetworkProfile.classA.withClockDrift(ppm: ppm), packets: 6_000)  // 120 s
        let points = trace.packets.compactMap { packet in packet.delayMs.map { (packet.sendMs, $0) } }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.0 } / n
        let meanY = points.reduce(0) { $0 + $1.1 } / n
        let covariance = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) }
        let variance = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.0 - meanX) }
        let slopePpm = covariance / variance * 1_000_000
        #expect(abs(slopePpm - ppm) < 20)
        #expect(abs(self.trace(.classA, packets: 6_000).delaysMs.last! - trace.delaysMs.last!) > 50)
    }
}
