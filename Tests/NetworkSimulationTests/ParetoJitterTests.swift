// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Testing
import TestSupport

@Suite struct ParetoJitterTests {
    @Test func sampleMeanAndMedianMatchTheDistribution() {
        let jitter = ParetoJitter(meanMs: 16, shape: 2.5)
        #expect(abs(jitter.scaleMs - 24) < 1e-12)
        var generator = SeededGenerator(seed: 7)
        let samples = (0..<100_000).map { _ in jitter.sampleMs(using: &generator) }
        #expect(samples.allSatisfy { $0 >= 0 })
        let mean = samples.reduce(0, +) / Double(samples.count)
        #expect(abs(mean - 16) < 16 * 0.05)
        let median = samples.sorted()[samples.count / 2]
        #expect(abs(median - jitter.quantileMs(0.5)) < jitter.quantileMs(0.5) * 0.03)
    }

    @Test func zeroScaleIsNoJitter() {
        var generator = SeededGenerator(seed: 3)
        #expect(ParetoJitter(shape: 2.5, scaleMs: 0).sampleMs(using: &generator) == 0)
    }
}
