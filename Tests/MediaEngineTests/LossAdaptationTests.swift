// SPDX-License-Identifier: Apache-2.0
@testable import CallCore
@testable import MediaEngine
import MediaEngineTesting
import NetworkSimulation
import Opus
import RTP
import Testing
import TestSupport

/// The closed loop from the far end's RTCP reports to Opus's in-band FEC: none on a clean
/// network, FEC while loss lasts, none again after — without flapping.
@Suite struct LossAdaptationTests {
    @Test func planFollowsReportedLossWithHysteresis() {
        var loop = LossAdaptation()
        let cleanChanged = loop.report(fractionLost: 0)
        #expect(!cleanChanged)
        #expect(loop.plannedLossPercent == 0)
        let lossChanged = loop.report(fractionLost: 0.073)
        #expect(lossChanged)
        #expect(loop.plannedLossPercent == 8, "rises at once, rounded up")
        // Wobbling around the plan does not move it down.
        for loss in [0.05, 0.09, 0.045, 0.07, 0.08] { _ = loop.report(fractionLost: loss) }
        #expect(loop.plannedLossPercent == 9)
        // One clean report is not enough; two in a row are.
        _ = loop.report(fractionLost: 0)
        #expect(loop.plannedLossPercent == 9)
        _ = loop.report(fractionLost: 0.07)
        _ = loop.report(fractionLost: 0)
        #expect(loop.plannedLossPercent == 9, "the count starts again after a lossy report")
        _ = loop.report(fractionLost: 0)
        #expect(loop.plannedLossPercent == 0)
        let brokenChanged = loop.report(fractionLost: .nan)
        #expect(!brokenChanged, "a broken report is no loss")
        _ = loop.report(fractionLost: 5)
        #expect(loop.plannedLossPercent == LossAdaptation.maximumPercent)
        // Heavy loss plans no more than 10 %: beyond it FEC costs more than it rebuilds.
        var heavy = LossAdaptation()
        _ = heavy.report(fractionLost: 0.25)
        #expect(heavy.plannedLossPercent == 10)
        // Jitter beyond a packet interval asks for FEC even without loss (reordering).
        var jittery = LossAdaptation()
        _ = jittery.report(fractionLost: 0, jitterMs: 8)
        #expect(jittery.plannedLossPercent == 0)
        _ = jittery.report(fractionLost: 0, jitterMs: 45)
        #expect(jittery.plannedLossPercent == LossAdaptation.reorderingPercent)
        #expect(LossAdaptation.reorderingPercent >= LossAdaptation.minimumPercent, "a plan libopus codes FEC for")
        // A plan is none or one libopus codes FEC for: a little loss is concealed, a few
        // percent plans the smallest FEC.
        var light = LossAdaptation()
        _ = light.report(fractionLost: 0.015)
        #expect(light.plannedLossPercent == 0, "1.5 % is concealed, not protected")
        _ = light.report(fractionLost: 0.035)
        #expect(light.plannedLossPercent == LossAdaptation.minimumPercent, "3.5 % plans the smallest FEC there is")
    }

    /// A call whose network loses 10 % from 20 s to 40 s and nothing before or after.
    @Test func fecTurnsOnWithLossAndOffAfterItWithoutOscillating() async throws {
        try await offCooperativePool {
            var generator = SeededGenerator(seed: 5)
            let frames = 3_000
            let packets = (0..<frames).map { index -> TracePacket in
                let send = Double(index) * 20
                let lossy = (1_000..<2_000).contains(index)
                let lost = lossy && Double.random(in: 0..<1, using: &generator) < 0.10
                return TracePacket(sequence: index, sendMs: send, arrivalMs: lost ? nil : send + 30)
            }
            let aliceToBob = SimulatedLink(trace: NetworkTrace(packets: packets))
            var fecPerPhase = [0, 0, 0, 0]
            var planned: [Int] = []
            aliceToBob.observer = { datagram, ms in
                guard !CallMedia.isRTCP(datagram), let view = try? RTPPacketView(datagram), view.payloadType == 111,
                      let info = try? OpusPacketInfo(packet: view.payload, sampleRate: 48_000) else { return }
                if info.hasFEC { fecPerPhase[ms < 20_000 ? 0 : ms < 40_000 ? 1 : ms < 55_000 ? 2 : 3] += 1 }
            }
            // Plain RTP, so the observer can read the Opus payloads on the wire.
            let loop = try CallLoop(aliceToBob: aliceToBob, srtp: false)
            for _ in 0..<(frames / 50) {
                loop.run(frames: 50, aliceMicrophone: { index, _ in CallLoop.frame(index % 400, of: CallOverNetworkTests.alice, length: 960) },
                         bobMicrophone: { index, _ in CallLoop.frame(index % 400, of: CallOverNetworkTests.bob, length: 960) })
                planned.append(loop.alice.call.statistics.outbound.plannedLossPercent)
            }
            #expect(planned[0..<20].allSatisfy { $0 == 0 }, "no FEC planned on the clean start: \(planned)")
            #expect(planned[28..<40].allSatisfy { $0 >= 5 }, "FEC planned while 10 % is lost: \(planned)")
            #expect(planned.suffix(5).allSatisfy { $0 == 0 }, "none again once loss stops: \(planned)")
            let changes = zip(planned, planned.dropFirst()).filter { $0 != $1 }.count
            #expect(changes <= 8, "no oscillation: \(planned)")
            #expect(fecPerPhase[0] < 20, "no in-band FEC sent on the clean network: \(fecPerPhase)")
            #expect(fecPerPhase[1] > 300, "FEC sent while loss lasts: \(fecPerPhase)")
            // Two clean reports (about 10 s) after the loss stops, FEC is off again.
            #expect(fecPerPhase[3] == 0, "no FEC in the last 5 s: \(fecPerPhase)")
            #expect(loop.bob.call.statistics.inbound.fecPacketsRecovered > 20)
        }
    }
}
