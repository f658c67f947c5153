// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import NetworkSimulation
import Testing
import TestSupport

/// The runner behind `benchmarks quality` (`SpeechCallRun`), without PESQ: its windows hold
/// each pass as the other side heard it, and each FEC plan sends the FEC it plans, over the
/// same network for every plan.
@Suite struct SpeechCallRunTests {
    /// 3 s of each fixture: enough for the first RTCP reports (after 1–3 s) inside the first pass.
    static let alice = Array(CallOverNetworkTests.alice.prefix(3 * 48_000))
    static let bob = Array(CallOverNetworkTests.bob.prefix(3 * 48_000))
    static let gapMs = 500

    static func run(_ plan: FECPlan, network: NetworkProfile?) throws -> SpeechCallRun {
        try SpeechCallRun(alice: alice, bob: bob, configuration: plan.configuration(), network: network, seed: 3, gapMs: gapMs)
    }

    @Test func windowsHoldEachPassAsHeard() async throws {
        try await offCooperativePool {
            let run = try Self.run(.adaptive, network: .classC)
            #expect(run.passFrames == 150 + 25, "3 s of speech and a 0.5 s gap in 20 ms frames")
            for direction in run.directions {
                for window in [direction.warmUp, direction.scored] {
                    #expect(window.received.count == run.passFrames * run.frameCount)
                    #expect(window.statistics.totalSamplesReceived == run.passFrames * run.frameCount)
                    // Heard within the window, as late as the network and the jitter buffer play it.
                    let heard = SignalComparison.segmentalCorrelation(reference: direction.speech, signal: window.received,
                                                                      segmentLength: 2_880, maxLag: 24_000)
                    #expect(heard > 0.8, "each pass is heard in its own window: \(heard)")
                }
            }
            let wrongTalker = SignalComparison.segmentalCorrelation(reference: Self.bob, signal: run.aliceToBob.scored.received,
                                                                    segmentLength: 2_880, maxLag: 24_000)
            #expect(wrongTalker < 0.5, "Bob hears Alice's fixture, not his own: \(wrongTalker)")
        }
    }

    @Test func eachPlanSendsTheFECItPlansOverTheSameNetwork() throws {
        let bursty = NetworkProfile.classC.withBurstyLoss()
        let none = try Self.run(.none, network: bursty)
        let fixed = try Self.run(.staticTenPercent, network: bursty)
        let adaptive = try Self.run(.adaptive, network: bursty)
        let adaptiveClean = try Self.run(.adaptive, network: nil)

        // One seed, one network: every plan loses the same packets.
        #expect(none.links.aliceToBob.lost == fixed.links.aliceToBob.lost)
        #expect(none.links.aliceToBob.lost == adaptive.links.aliceToBob.lost)
        #expect(none.links.bobToAlice.lost == adaptive.links.bobToAlice.lost)
        #expect(none.aliceToBob.scored.statistics.lossPercent > 3, "bursty loss: about 9 %")

        for direction in none.directions {
            #expect(direction.scored.statistics.fecPacketsReceived == 0)
            #expect(direction.scored.statistics.plannedLossPercentAtEnd == 0)
        }
        for direction in fixed.directions {
            #expect(direction.warmUp.statistics.fecPercent > 30, "FEC from the first packet: \(direction.warmUp.statistics.fecPercent) %")
            #expect(direction.scored.statistics.plannedLossPercentAtStart == 10)
            #expect(direction.scored.statistics.fecPacketsRecovered > 0)
        }
        for direction in adaptiveClean.directions {
            #expect(direction.scored.statistics.fecPacketsReceived == 0, "no FEC on a clean link")
            #expect(direction.scored.statistics.plannedLossPercentAtEnd == 0)
        }
        for direction in adaptive.directions {
            let warmUp = direction.warmUp.statistics
            let scored = direction.scored.statistics
            #expect(warmUp.plannedLossPercentAtStart == 0, "no FEC planned before the first report")
            #expect(scored.plannedLossPercentAtEnd == 2, "FEC planned at the smallest plan coded at 32 kb/s: \(scored.plannedLossPercentAtEnd) %")
            #expect(scored.fecPercent > 30, "and sent: \(scored.fecPercent) %")
            #expect(warmUp.fecPercent < scored.fecPercent, "FEC came with the reports, not from the start")
        }
    }
}
