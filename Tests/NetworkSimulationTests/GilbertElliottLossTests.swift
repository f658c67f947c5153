// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Testing
import TestSupport

@Suite struct GilbertElliottLossTests {
    @Test func lossRateAndBurstLengthMatchTheParameters() {
        var loss = GilbertElliottLoss(goodToBad: 0.05, badToGood: 0.5)
        #expect(abs(loss.stationaryLossRate - 0.05 / 0.55) < 1e-12)
        var generator = SeededGenerator(seed: 1)
        var lost = 0
        var bursts = 0
        var previousLost = false
        let count = 200_000
        for _ in 0..<count {
            let isLost = loss.nextIsLost(using: &generator)
            if isLost { lost += 1; if !previousLost { bursts += 1 } }
            previousLost = isLost
        }
        let rate = Double(lost) / Double(count)
        #expect(abs(rate - 0.0909) < 0.005)
        #expect(abs(Double(lost) / Double(bursts) - 2) < 0.1)  // mean burst 1/r
    }

    @Test func lossRateInitializerHitsTheRate() {
        let loss = GilbertElliottLoss(lossRate: 0.01, meanBurstPackets: 1.5)
        #expect(abs(loss.stationaryLossRate - 0.01) < 1e-12)
        #expect(abs(1 / loss.badToGood - 1.5) < 1e-12)
        #expect(GilbertElliottLoss(lossRate: 0, meanBurstPackets: 2).stationaryLossRate == 0)
    }
}
