// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import MediaEngineTesting
import NetworkSimulation
@testable import CallCore
@testable import MediaEngine
import RTP
import Testing

/// The E-model: G.107's default connection rates 93.2, each impairment behaves as G.107 and
/// G.107.1 define it, the MOS mapping, Opus's impairment values, and the estimate a call
/// makes from its counters.
@Suite struct EModelTests {
    @Test func g107DefaultParametersRate93Point2() {
        let model = EModel()
        #expect(abs(model.rating - 93.2) < 0.05, "R = \(model.rating)")
        // Its parts, as G.107's default calculation gives them: Ro 94.77, Is 1.41, Id 0.15.
        #expect(abs(model.basicSignalToNoiseRatio - 94.77) < 0.01, "Ro = \(model.basicSignalToNoiseRatio)")
        #expect(abs(model.simultaneousImpairment - 1.41) < 0.01, "Is = \(model.simultaneousImpairment)")
        #expect(abs(model.delayImpairment - 0.15) < 0.01, "Id = \(model.delayImpairment)")
        #expect(model.effectiveEquipmentImpairment == 0)
        #expect(abs(EModel.meanOpinionScore(rating: model.rating) - 4.41) < 0.01)
    }

    @Test func annexBMapsRatingToMOS() {
        #expect(EModel.meanOpinionScore(rating: -5) == 1)
        #expect(EModel.meanOpinionScore(rating: 0) == 1)
        #expect(EModel.meanOpinionScore(rating: 3) == 1, "the cubic dips under 1 below R 6.5: held at 1")
        #expect(abs(EModel.meanOpinionScore(rating: 50) - 2.575) < 1e-9)
        #expect(abs(EModel.meanOpinionScore(rating: 80) - (1 + 2.8 + 80 * 20 * 20 * 7e-6)) < 1e-9)
        #expect(EModel.meanOpinionScore(rating: 100) == 4.5)
        #expect(EModel.meanOpinionScore(rating: 140) == 4.5)
        #expect(EModel.meanOpinionScore(rating: .nan) == 1)
        #expect(EModel.meanOpinionScore(rating: .infinity) == 4.5)
        // Monotonic over the scale.
        let scores = stride(from: 0.0, through: 100, by: 0.5).map { EModel.meanOpinionScore(rating: $0) }
        #expect(zip(scores, scores.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func absoluteDelayCostsNothingUpTo100MsThenRises() {
        var model = EModel()
        model.absoluteDelayMs = 100
        #expect(model.absoluteDelayImpairment == 0)
        // Idd = 25 {(1 + X⁶)^⅙ − 3 (1 + (X/3)⁶)^⅙ + 2}, X = log2(Ta / 100): X = 1 at 200 ms.
        model.absoluteDelayMs = 200
        let first: Double = pow(2, 1.0 / 6)
        let second: Double = 3 * pow(1 + 1.0 / 729, 1.0 / 6)
        let expected = 25 * (first - second + 2)
        #expect(abs(model.absoluteDelayImpairment - expected) < 1e-9)
        #expect(abs(model.absoluteDelayImpairment - 3.04) < 0.01)
        var previous = 0.0
        for delay in stride(from: 150.0, through: 800, by: 50) {
            model.absoluteDelayMs = delay
            #expect(model.absoluteDelayImpairment > previous)
            previous = model.absoluteDelayImpairment
        }
        // 400 ms, G.114's planning limit, costs about a quarter of the scale.
        model.absoluteDelayMs = 400
        #expect(abs(model.absoluteDelayImpairment - 24.1) < 0.1)
    }

    @Test func talkerEchoGrowsWithItsDelayAndShrinksWithTELR() {
        var model = EModel()
        model.echoPathDelayMs = 0.5
        #expect(model.talkerEchoImpairment == 0, "under 1 ms an echo is sidetone")
        model.echoPathDelayMs = 100
        let at100 = model.talkerEchoImpairment
        model.echoPathDelayMs = 300
        #expect(model.talkerEchoImpairment > at100)
        model.talkerEchoLoudnessRating = 35
        #expect(model.talkerEchoImpairment > 20, "a poorly cancelled echo at 300 ms ruins the call")
    }

    @Test func packetLossImpairmentFollowsG107() {
        var model = EModel()
        model.packetLossPercent = 2
        // Ie,eff = Ie + (95 − Ie) · Ppl / (Ppl / BurstR + Bpl) with Ie 0, Bpl 4.3.
        #expect(abs(model.effectiveEquipmentImpairment - 95 * 2 / 6.3) < 1e-9)
        model.equipmentImpairment = 11
        model.packetLossRobustness = 19
        model.burstRatio = 2
        #expect(abs(model.effectiveEquipmentImpairment - (11 + 84 * 2 / (1 + 19))) < 1e-9)
        // Bursty loss hurts more than random at the same rate.
        model.burstRatio = 1
        let random = model.effectiveEquipmentImpairment
        model.burstRatio = 4
        #expect(model.effectiveEquipmentImpairment > random)
    }

    @Test func wideBandScale() {
        let clean = WidebandEModel()
        #expect(abs(clean.rating - (129 - EModel().delayImpairment)) < 1e-9)
        #expect(clean.meanOpinionScore > 4.49 && clean.listeningMeanOpinionScore == 4.5)
        var model = WidebandEModel()
        model.equipmentImpairment = 32.9
        model.packetLossRobustness = 6.7
        // Ie,eff,WB = Ie,WB + (129 − Ie,WB) · Ppl / (Ppl / BurstR + Bpl).
        model.packetLossPercent = 5
        #expect(abs(model.effectiveEquipmentImpairment - (32.9 + 96.1 * 5 / 11.7)) < 1e-9)
        #expect(abs(model.narrowbandScaleRating - model.rating / 1.29) < 1e-12)
        // Delay lowers the conversational MOS, not the listening one.
        let listening = model.listeningMeanOpinionScore
        let conversational = model.meanOpinionScore
        model.absoluteDelayMs = 400
        model.echoPathDelayMs = 400
        model.roundTripDelayMs = 800
        #expect(model.listeningMeanOpinionScore == listening)
        #expect(model.meanOpinionScore < conversational - 0.3)
        // A VoIP connection: echo path and listener loop follow the mouth-to-ear delay.
        let voip = WidebandEModel(mouthToEarMs: 400, codec: CodecImpairment(equipmentImpairment: 32.9, packetLossRobustness: 6.7),
                                  lossPercent: 5)
        #expect(voip == model)
    }

    /// A call's jitter buffer prices late packets for the codec it plays (what the target
    /// weighs), and the call's own jitter-buffer settings keep the delay outside the buffer.
    @Test(arguments: [(AudioCodec.opus, 24.5, 6.0), (.pcmu, 54.1, 22.3), (.g722, 51.0, 13.4)])
    func aCallsJitterBufferPricesLatePacketsForItsCodec(codec: AudioCodec, impairment: Double, robustness: Double) {
        var configuration = MediaConfiguration()
        configuration.codec = codec
        configuration.jitterBuffer.delayPricing.delayOutsideBufferMs = 120
        let pricing = configuration.playoutConfiguration.delayPricing
        #expect(pricing.codec.equipmentImpairment == impairment && pricing.codec.packetLossRobustness == robustness)
        #expect(pricing.delayOutsideBufferMs == 120)
    }

    @Test func nonFiniteAndOutOfRangeInputsGiveAFiniteRating() {
        let values: [Double] = [.nan, .infinity, -.infinity, -1e300, 1e300, -5, 0]
        for value in values {
            var model = EModel()
            model.absoluteDelayMs = value
            model.echoPathDelayMs = value
            model.roundTripDelayMs = value
            model.packetLossPercent = value
            model.burstRatio = value
            model.packetLossRobustness = value
            model.equipmentImpairment = value
            model.quantizingDistortionUnits = value
            model.sendLoudnessRating = value
            model.circuitNoise = value
            #expect(model.rating.isFinite, "R with every input \(value)")
            var wideband = WidebandEModel()
            wideband.absoluteDelayMs = value
            wideband.packetLossPercent = value
            wideband.burstRatio = value
            wideband.equipmentImpairment = value
            wideband.talkerEchoLoudnessRating = value
            #expect(wideband.rating.isFinite && wideband.meanOpinionScore >= 1 && wideband.meanOpinionScore <= 4.5)
        }
    }

    @Test func opusImpairmentInterpolatesOverBitrateAndAddsFECsCost() {
        #expect(CodecImpairment.opus(bitsPerSecond: 24_000).equipmentImpairment == 32.9)
        #expect(CodecImpairment.opus(bitsPerSecond: 24_000).packetLossRobustness == 6.7)
        // 10 ms frames: their own Ie,WB, Bpl,WB, FEC costs and payload rates.
        #expect(CodecImpairment.opus(bitsPerSecond: 32_000, frameDurationMs: 10).equipmentImpairment == 28.8)
        #expect(abs(CodecImpairment.opus(bitsPerSecond: 32_000, frameDurationMs: 10).packetLossRobustness - 8.1) < 1e-9)
        #expect(abs(CodecImpairment.opus(bitsPerSecond: 24_000, frameDurationMs: 10).packetLossRobustness - 9.5) < 1e-9)
        #expect(CodecImpairment.opus(bitsPerSecond: 32_000, fecPlannedLossPercent: 2, frameDurationMs: 10).equipmentImpairment == 28.8 + 21.8)
        #expect(CodecImpairment.opus(bitsPerSecond: 24_000, fecPlannedLossPercent: 6, frameDurationMs: 10).equipmentImpairment == 39.3 + 29.8)
        #expect(CodecImpairment.opus(bitsPerSecond: 32_000, frameDurationMs: 40) == CodecImpairment.opus(bitsPerSecond: 32_000))
        #expect(abs(CodecImpairment.opusTargetBitsPerSecond(payloadBitsPerSecond: 32_160, frameDurationMs: 10) - 32_000) < 1e-6)
        #expect(abs(CodecImpairment.opusTargetBitsPerSecond(payloadBitsPerSecond: 30_360) - 32_000) < 1e-6)
        let between = CodecImpairment.opus(bitsPerSecond: 28_000).equipmentImpairment
        #expect(between < 32.9 && between > 24.5)
        #expect(CodecImpairment.opus(bitsPerSecond: 6_000).equipmentImpairment == 54.7)
        #expect(CodecImpairment.opus(bitsPerSecond: 510_000).equipmentImpairment == 14.1)
        #expect(CodecImpairment.opus(bitsPerSecond: .nan).equipmentImpairment == 32.9)
        #expect(CodecImpairment.opus(bitsPerSecond: 24_000, fecPlannedLossPercent: 10).equipmentImpairment == 32.9 + 20.8)
        #expect(CodecImpairment.opus(bitsPerSecond: 24_000, fecPlannedLossPercent: 7.5).equipmentImpairment > 32.9 + 3.9)
        // An encoder planning for loss conceals what FEC misses better.
        #expect(CodecImpairment.opus(bitsPerSecond: 24_000, fecPlannedLossPercent: 10).packetLossRobustness == 14.4)
        #expect(CodecImpairment.opus(bitsPerSecond: 24_000, fecPlannedLossPercent: 50).packetLossRobustness == 21)
        // Clean Opus at 24 kb/s on the MOS scale: what PESQ-WB gave the fixtures (3.80).
        var model = WidebandEModel()
        model.equipmentImpairment = 32.9
        #expect(abs(EModel.meanOpinionScore(rating: (129 - 32.9) / 1.29) - 3.80) < 0.01)
    }

    @Test func opusFECFactorsAreLookedUpByBitrate() {
        func close(_ value: Double, _ expected: Double) -> Bool { abs(value - expected) < 1e-9 }
        func fecCost(_ bitrate: Double, _ plan: Double) -> Double {
            CodecImpairment.opus(bitsPerSecond: bitrate, fecPlannedLossPercent: plan).equipmentImpairment
                - CodecImpairment.opus(bitsPerSecond: bitrate).equipmentImpairment
        }
        func robustness(_ bitrate: Double, _ plan: Double) -> Double {
            CodecImpairment.opus(bitsPerSecond: bitrate, fecPlannedLossPercent: plan).packetLossRobustness
        }
        // 32 kb/s has its own tables: libopus codes FEC there from a 1 % plan, so small plans
        // cost more than at 24 kb/s (where they code none) and large ones less.
        #expect(close(CodecImpairment.opus(bitsPerSecond: 32_000).equipmentImpairment, 24.5))
        #expect(close(robustness(32_000, 0), 6.0))
        #expect(close(fecCost(32_000, 5), 14.3) && close(fecCost(24_000, 5), 3.9))
        #expect(close(fecCost(32_000, 20), 29.0) && close(fecCost(24_000, 20), 38.3))
        #expect(close(robustness(32_000, 10), 12.7) && close(robustness(32_000, 20), 14.7))
        // The engine's smallest plan, measured at both: where libopus at 24 kb/s starts coding FEC.
        #expect(close(fecCost(24_000, 6), 16.6) && close(fecCost(32_000, 6), 16.6))
        // Between the two bitrates, between their tables.
        #expect(fecCost(28_000, 20) > 29.0 && fecCost(28_000, 20) < 38.3)
        #expect(fecCost(28_000, 5) > 3.9 && fecCost(28_000, 5) < 14.3)
        #expect(robustness(28_000, 20) > 14.7 && robustness(28_000, 20) < 21.0)
        // Outside, the nearest table holds.
        #expect(close(fecCost(16_000, 10), 20.8) && close(robustness(12_000, 20), 21.0))
        #expect(close(fecCost(64_000, 10), 20.4) && close(robustness(64_000, 20), 14.7))
    }

    /// Counters of a call that received `expected` packets over 60 s from a sender at 24 kb/s.
    static func inbound(expected: Int = 3_000, lost: Int, discarded: Int = 0, recovered: Int = 0, fec: Int = 0) -> InboundRTPStatistics {
        var inbound = InboundRTPStatistics()
        inbound.ssrc = 7
        inbound.packetsReceived = expected - lost
        inbound.packetsLost = lost
        inbound.packetsDiscarded = discarded
        inbound.fecPacketsRecovered = recovered
        inbound.fecPacketsReceived = fec
        // 58.4 bytes per 20 ms: 23.36 kb/s, the payload rate of talk from a sender set to 24 kb/s.
        inbound.bytesReceived = (expected - lost) * 58_400 / 1_000
        inbound.jitterBufferDelay = 0.04 * 48_000 * 100
        inbound.jitterBufferEmittedCount = 48_000 * 100  // a mean of 40 ms
        inbound.jitterBufferTargetDelayMs = 40
        return inbound
    }

    @Test func aCallsEstimateCountsWhatTheListenerMissed() {
        let configuration = MediaConfiguration()
        func estimate(_ inbound: InboundRTPStatistics, rtt: Double? = 0.06, burstGap: BurstGapStatistics = BurstGapStatistics()) -> CallQualityEstimate {
            let inputs = VoIPMetricsInputs(inbound: inbound, burstGap: burstGap, configuration: configuration, deviceDelayMs: 30)
            return CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: rtt)
        }
        let clean = estimate(Self.inbound(lost: 0))
        // 30 ms (RTT / 2) + 20 ms framing + 6.5 ms lookahead + 40 ms jitter buffer + 30 ms device.
        #expect(abs(clean.mouthToEarDelayMs - 126.5) < 1e-9)
        #expect(clean.effectiveLossPercent == 0 && abs(clean.codecImpairment.equipmentImpairment - 32.9) < 0.01)
        // Listening: Opus at 24 kb/s alone (PESQ-WB 3.80); conversational: less the delay's
        // impairments (talker echo at TELR 65, listener echo, absolute delay), about 3 R_WB points.
        #expect(abs(clean.listeningMeanOpinionScore - 3.80) < 0.01, "\(clean.listeningMeanOpinionScore)")
        #expect(clean.meanOpinionScore > 3.6 && clean.meanOpinionScore < 3.75, "\(clean.meanOpinionScore)")
        let lossy = estimate(Self.inbound(lost: 300, discarded: 30))
        #expect(abs(lossy.effectiveLossPercent - 11) < 1e-9)
        #expect(lossy.meanOpinionScore < clean.meanOpinionScore - 1)
        // What FEC rebuilt the listener did not miss, but FEC's bits cost the codec.
        let rebuilt = estimate(Self.inbound(lost: 300, discarded: 30, recovered: 250, fec: 2_700))
        #expect(abs(rebuilt.effectiveLossPercent - 80.0 / 30) < 1e-9)
        // A peer adapting as ours does codes the smallest plan at its 24 kb/s: 6 %.
        #expect(abs(rebuilt.codecImpairment.equipmentImpairment - (32.9 + 16.6)) < 0.01, "FEC at 6 %: \(rebuilt.codecImpairment)")
        #expect(rebuilt.codecImpairment.packetLossRobustness > 10.8 && rebuilt.codecImpairment.packetLossRobustness < 14.4)
        // Concealment the packet counts do not show (waits for overtaken packets) counts too.
        var waited = Self.inbound(lost: 0)
        waited.totalSamplesReceived = 3_000 * 960
        waited.concealedSamples = 150 * 960 + 100 * 960
        waited.silentConcealedSamples = 100 * 960  // DTX comfort noise is no loss
        #expect(abs(estimate(waited).effectiveLossPercent - 150.0 / 2_900 * 100) < 1e-9)  // of what was played outside DTX
        // A call of turns: the far end talked for half of it, and what the listener missed is a
        // share of that talk, not of the whole call.
        var turns = waited
        turns.samplesDecodedInSilence = 1_400 * 960  // with the 100 silent frames, half the call
        #expect(abs(estimate(turns).effectiveLossPercent - 10) < 1e-9)
        // Packets lost while the far end was silent were concealed silently: nothing missed.
        var lostInSilence = Self.inbound(lost: 60)
        lostInSilence.totalSamplesReceived = 3_000 * 960
        lostInSilence.concealedSamples = 60 * 960
        lostInSilence.silentConcealedSamples = 60 * 960
        #expect(estimate(lostInSilence).effectiveLossPercent == 0)
        #expect(abs(estimate(lostInSilence).listeningMeanOpinionScore - clean.listeningMeanOpinionScore) < 0.001)
        #expect(rebuilt.meanOpinionScore > lossy.meanOpinionScore)
        // Bursts are measured; for Opus they are not weighed (`CodecImpairment.weighsBursts`:
        // its concealment, as played here, is priced by Bpl alone).
        var bursty = BurstGapStatistics()
        for index in 0..<3_000 { bursty.record(index % 100 < 10 ? .lost : .received) }
        #expect(bursty.burstRatio > 5)
        let burstyEstimate = estimate(Self.inbound(lost: 300), burstGap: bursty)
        #expect(burstyEstimate.burstRatio == bursty.burstRatio)
        #expect(burstyEstimate.meanOpinionScore == estimate(Self.inbound(lost: 300)).meanOpinionScore)
        // Without a round trip measured the network counts as no delay.
        #expect(estimate(Self.inbound(lost: 0), rtt: nil).mouthToEarDelayMs == 96.5)
    }

    /// A call of turns: Bob is silent for Alice's first 4 s and from 1.2 s on every tenth of his
    /// packets is lost, then he talks on a clean path. What Alice's estimate counts as missed is
    /// what she missed of his talk — nothing — though the losses were concealed (silently);
    /// counted over the packets of the whole call, as before, they read 1.75 % missed (Bob →
    /// Alice in the demo: 0.5 under PESQ-WB).
    @Test func lossInTheFarEndsSilenceIsNotMissedTalk() {
        let packets = (0..<400).map { index -> TracePacket in
            let send = Double(index) * 20
            let lost = (60..<200).contains(index) && index % 10 == 5
            return TracePacket(sequence: index, sendMs: send, arrivalMs: lost ? nil : send + 30)
        }
        let loop = try! CallLoop(bobToAlice: SimulatedLink(trace: NetworkTrace(packets: packets)), srtp: false)
        loop.run(frames: 400, aliceMicrophone: { index, _ in CallLoop.frame(index, of: CallOverNetworkTests.alice, length: 960) },
                 bobMicrophone: { index, _ in index < 200 ? [Int16](repeating: 0, count: 960) : CallLoop.frame(index - 200, of: CallOverNetworkTests.bob, length: 960) })
        let heard = loop.alice.call.statistics
        #expect(heard.inbound.packetsLost >= 12)
        #expect(heard.inbound.silentConcealedSamples >= 12 * 960, "\(heard.inbound.silentConcealedSamples)")
        let quality = heard.quality
        #expect(quality.map { $0.effectiveLossPercent < 0.5 } == true, "\(String(describing: quality?.effectiveLossPercent)) concealed \(heard.inbound.concealedSamples) silent \(heard.inbound.silentConcealedSamples) talk \(heard.inbound.speechPacketsReceived) of \(heard.inbound.packetsReceived)")
    }

    /// A G.711 or G.722 call is rated with its own factors (measured as Opus's are: the E-model
    /// agrees with PESQ-WB), not Opus's at the bitrate received, and without Opus's look-ahead.
    @Test(arguments: [(AudioCodec.pcmu, 2.98, 22.3), (.pcma, 3.02, 22.3), (.g722, 3.12, 13.4)])
    func fixedRateCodecsHaveTheirOwnFactors(codec: AudioCodec, pesq: Double, robustness: Double) {
        var configuration = MediaConfiguration()
        configuration.codec = codec
        configuration.payloadType = codec.staticPayloadType!
        var inbound = Self.inbound(lost: 0)
        inbound.bytesReceived = 3_000 * 160
        inbound.speechBytesReceived = 3_000 * 160
        let inputs = VoIPMetricsInputs(inbound: inbound, burstGap: BurstGapStatistics(), configuration: configuration, deviceDelayMs: 30)
        let estimate = CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: 0.06)
        #expect(estimate.codecImpairment.packetLossRobustness == robustness)
        #expect(abs(estimate.mouthToEarDelayMs - 120) < 1e-9, "no Opus look-ahead: \(estimate.mouthToEarDelayMs)")
        #expect(abs(estimate.listeningMeanOpinionScore - pesq) < 0.05, "\(codec): \(estimate.listeningMeanOpinionScore) against PESQ-WB \(pesq)")
        // G.107's burst ratio still weighs their misses (no measurement says otherwise).
        var bursty = BurstGapStatistics()
        for index in 0..<3_000 { bursty.record(index % 100 < 10 ? .lost : .received) }
        var lossy = Self.inbound(lost: 300)
        lossy.bytesReceived = 2_700 * 160
        lossy.speechBytesReceived = 2_700 * 160
        func rated(_ burstGap: BurstGapStatistics) -> Double {
            let inputs = VoIPMetricsInputs(inbound: lossy, burstGap: burstGap, configuration: configuration, deviceDelayMs: 30)
            return CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: 0.06).listeningMeanOpinionScore
        }
        #expect(estimate.codecImpairment.weighsBursts)
        #expect(rated(bursty) < rated(BurstGapStatistics()))
    }

    /// `quality(since:)` rates a span alone: after a lossy start, the clean stretch that follows
    /// reads clean (the whole call's estimate still carries the start), and from a snapshot
    /// taken before the first packet it is the whole call's.
    @Test func aSpansEstimateCountsOnlyThatSpan() throws {
        // Alice → Bob loses every 4th packet for the first 10 s, then nothing.
        let packets = (0..<1_000).map { (index: Int) -> TracePacket in
            let sendMs = Double(index) * 20
            let isLost = index < 500 && index % 4 == 3
            return TracePacket(sequence: index, sendMs: sendMs, arrivalMs: isLost ? nil : sendMs + 30)
        }
        let loop = try CallLoop(aliceToBob: SimulatedLink(trace: NetworkTrace(packets: packets)), srtp: false)
        let tone = { (index: Int, _: CallLoop.Side) -> [Int16] in
            (0..<960).map { (sample: Int) -> Int16 in
                Int16(6_000 * sin(2 * Double.pi * 440 * Double(index * 960 + sample) / 48_000))
            }
        }
        let silence = { (_: Int, _: CallLoop.Side) in [Int16](repeating: 0, count: 960) }
        let start = loop.bob.call.statistics
        loop.run(frames: 600, aliceMicrophone: tone, bobMicrophone: silence)
        let middle = loop.bob.call.statistics
        loop.run(frames: 390, aliceMicrophone: tone, bobMicrophone: silence)
        let end = loop.bob.call.statistics
        let whole = try #require(end.quality), clean = try #require(end.quality(since: middle))
        let lossy = try #require(middle.quality(since: start))
        #expect(end.quality(since: start) == whole)
        #expect(lossy.effectiveLossPercent > 15, "the first 12 s: \(lossy.effectiveLossPercent) % missed")
        #expect(clean.effectiveLossPercent < 0.5, "the last 7.8 s: \(clean.effectiveLossPercent) % missed")
        #expect(whole.effectiveLossPercent > 10 && whole.effectiveLossPercent < lossy.effectiveLossPercent)
        #expect(clean.listeningMeanOpinionScore > whole.listeningMeanOpinionScore + 0.5,
                "clean stretch \(clean.listeningMeanOpinionScore), whole call \(whole.listeningMeanOpinionScore)")
    }
}
