// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import NetworkSimulation
import RTP
import Testing
import TestSupport

/// RTCP XR between two calls on the virtual clock: every report carries a VoIP Metrics block
/// about the stream received, whose figures are the receiver's own counters; the far end reads
/// it; and the call's own E-model estimate falls as the network loses more.
@Suite struct XRTests {
    static func speech(_ index: Int, _: CallLoop.Side) -> [Int16] {
        CallLoop.frame(index % 400, of: CallOverNetworkTests.alice, length: 960)
    }
    static func otherSpeech(_ index: Int, _: CallLoop.Side) -> [Int16] {
        CallLoop.frame(index % 400, of: CallOverNetworkTests.bob, length: 960)
    }

    /// A trace of `frames` 20 ms packets, each lost with probability `loss`, the others 30 ms late.
    static func randomLoss(_ loss: Double, frames: Int, seed: UInt64) -> NetworkTrace {
        var generator = SeededGenerator(seed: seed)
        return NetworkTrace(packets: (0..<frames).map { index in
            let send = Double(index) * 20
            return TracePacket(sequence: index, sendMs: send, arrivalMs: Double.random(in: 0..<1, using: &generator) < loss ? nil : send + 30)
        })
    }

    /// The VoIP Metrics blocks in an RTCP datagram, if it is one.
    static func voipMetrics(in datagram: UnsafeRawBufferPointer) -> [RTCPVoIPMetricsBlock] {
        guard CallMedia.isRTCP(datagram), let compound = try? RTCPCompoundPacket(parsing: datagram) else { return [] }
        return compound.packets.flatMap { packet -> [RTCPVoIPMetricsBlock] in
            if case let .extendedReport(report) = packet { return report.voipMetrics }
            return []
        }
    }

    @Test func everyReportCarriesAVoIPMetricsBlockWhoseRatesAreTheReceiversCounters() throws {
        var generator = SeededGenerator(seed: 21)
        let trace = NetworkSimulator(profile: NetworkProfile.classC.withBurstyLoss()).trace(packetCount: 1_500, using: &generator)
        let aliceToBob = SimulatedLink(trace: trace), bobToAlice = SimulatedLink(trace: nil)
        var reportsSent = 0
        var blocksSent: [RTCPVoIPMetricsBlock] = []
        bobToAlice.observer = { datagram, _ in
            guard CallMedia.isRTCP(datagram) else { return }
            reportsSent += 1
            blocksSent += Self.voipMetrics(in: datagram)
        }
        // Plain RTP so the observer reads the reports.
        let loop = try CallLoop(aliceToBob: aliceToBob, bobToAlice: bobToAlice, srtp: false)
        var checked = 0
        for _ in 0..<1_500 {
            let before = blocksSent.count
            loop.run(frames: 1, aliceMicrophone: Self.speech, bobMicrophone: Self.otherSpeech)
            guard blocksSent.count > before, let block = blocksSent.last else { continue }
            // Sent this frame: Bob's counters have not moved since.
            let inbound = loop.bob.call.statistics.inbound
            let expected = inbound.packetsReceived + inbound.packetsLost
            #expect(block.ssrc == loop.alice.call.ssrc)
            #expect(block.lossRate == RTCPVoIPMetricsBlock.fixedPointFraction(Double(inbound.packetsLost) / Double(expected)))
            #expect(block.discardRate == RTCPVoIPMetricsBlock.fixedPointFraction(Double(inbound.packetsDiscarded) / Double(expected)))
            #expect(block.jitterBufferNominalMs == UInt16(inbound.jitterBufferTargetDelayMs.rounded()))
            #expect(block.jitterBufferMaximumMs >= block.jitterBufferNominalMs)
            #expect(block.jitterBufferAbsoluteMaximumMs == 1_000)
            #expect(block.gapThreshold == 16)
            #expect(block.packetLossConcealment == .enhanced && block.jitterBufferAdaptivity == .adaptive)
            let quality = try #require(loop.bob.call.statistics.quality)
            #expect(block.rFactor == UInt8(quality.rating.rounded()))
            #expect(block.mosCQ == UInt8((quality.meanOpinionScore * 10).rounded()))
            #expect(block.mosLQ == UInt8((quality.listeningMeanOpinionScore * 10).rounded()))
            checked += 1
        }
        #expect(checked >= 5 && checked == reportsSent, "every report (\(reportsSent)) carried a block; \(checked) checked")
        #expect(aliceToBob.lost > 20, "the bursty link lost packets: \(aliceToBob.lost)")
        let last = try #require(blocksSent.last)
        #expect(last.lossRate > 0)
        #expect(last.burstDensity > last.gapDensity, "bursty loss: burst density \(last.burstDensity), gap \(last.gapDensity)")
        #expect(last.burstDurationMs > 0 && last.gapDurationMs > last.burstDurationMs)
        #expect(last.roundTripDelayMs > 0, "Bob measured a round trip from Alice's sender reports")
        #expect(last.endSystemDelayMs >= 20 + 6)
        // Alice reads Bob's block about her stream.
        let remote = loop.alice.call.statistics.remoteInbound
        #expect(remote.voipMetricsReceived >= reportsSent - 1)
        #expect(remote.voipMetrics?.ssrc == loop.alice.call.ssrc)
        #expect(remote.voipMetrics?.lossRate ?? 0 > 0)
    }

    @Test func theEstimatedMOSFallsAsLossRisesAndACleanCallRatesAsOpusAlone() async throws {
        try await offCooperativePool {
            func call(loss: Double) throws -> (statistics: CallMediaStatistics, xr: RTCPVoIPMetricsBlock?) {
                let aliceToBob = SimulatedLink(trace: Self.randomLoss(loss, frames: 1_500, seed: 31))
                let bobToAlice = SimulatedLink(trace: nil)
                aliceToBob.fixedDelayMs = 30
                bobToAlice.fixedDelayMs = 30
                let loop = try CallLoop(aliceToBob: aliceToBob, bobToAlice: bobToAlice)
                loop.run(frames: 1_500, aliceMicrophone: Self.speech, bobMicrophone: Self.otherSpeech)
                return (loop.bob.call.statistics, loop.alice.call.statistics.remoteInbound.voipMetrics)
            }
            let clean = try call(loss: 0)
            let lossy = try call(loss: 0.10)
            let cleanQuality = try #require(clean.statistics.quality)
            let lossyQuality = try #require(lossy.statistics.quality)
            // Our MOS scale is PESQ-WB's (P.862.2), on which libopus alone scores 4.06 at 32 kb/s on
            // the fixtures: a clean call listens as that (4.03: libopus's VBR spends a little under
            // 32 kb/s on this speech, and the estimate prices the rate received), and talks a
            // little lower for its delay.
            #expect(cleanQuality.effectiveLossPercent == 0)
            #expect(abs(cleanQuality.listeningMeanOpinionScore - 4.06) < 0.05, "clean listening MOS \(cleanQuality.listeningMeanOpinionScore)")
            #expect(cleanQuality.meanOpinionScore >= 3.6, "clean MOS \(cleanQuality.meanOpinionScore), \(cleanQuality)")
            #expect(lossyQuality.effectiveLossPercent > 0)
            #expect(lossyQuality.meanOpinionScore < cleanQuality.meanOpinionScore - 0.5, "10 % loss: MOS \(lossyQuality.meanOpinionScore), \(lossyQuality)")
            // The far end hears the same through XR.
            let cleanXR = try #require(clean.xr), lossyXR = try #require(lossy.xr)
            #expect(cleanXR.lossRate == 0 && cleanXR.burstDensity == 0 && cleanXR.gapDensity == 0)
            #expect((cleanXR.mosCQ ?? 0) > (lossyXR.mosCQ ?? 255))
            #expect(abs(lossyXR.lossFraction - 0.10) < 0.03, "XR loss \(lossyXR.lossFraction)")
        }
    }
}
