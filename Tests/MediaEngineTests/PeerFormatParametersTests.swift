// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import Opus
import RTP
import Testing

/// What we send honours the peer's `a=fmtp` (RFC 7587 §6–7), parameter by parameter: in the
/// configuration `applying(peer:ptime:)` returns, and in the packets an uplink built from it
/// sends.
@Suite struct PeerFormatParametersTests {
    let ours = MediaConfiguration()

    func peer(_ text: String) throws -> OpusFormatParameters { try OpusFormatParameters(parsing: text) }

    /// Packets an uplink with `configuration` sends for `frames` frames of the speech fixture.
    func sentPackets(_ configuration: MediaConfiguration, frames: Int = 150) throws -> [(info: OpusPacketInfo, bytes: Int)] {
        let uplink = try UplinkPipeline(configuration: configuration, ssrc: 1, initialSequenceNumber: 0, initialTimestamp: 0)
        let speech = CallOverNetworkTests.alice
        let length = configuration.samplesPerFrame
        var sent: [(OpusPacketInfo, Int)] = []
        for index in 0..<frames {
            let frame = CallLoop.frame(index % (speech.count / length), of: speech, length: length)
            try frame.withUnsafeBufferPointer { pcm in
                guard let packet = try uplink.process(pcm) else { return }
                let view = try RTPPacketView(UnsafeRawBufferPointer(rebasing: packet.buffer[0..<packet.length]))
                sent.append((try OpusPacketInfo(packet: view.payload, sampleRate: 48_000), view.payload.count))
            }
        }
        return sent
    }

    @Test func noParametersMeansRFC7587Defaults() throws {
        let sending = try ours.applying(peer: OpusFormatParameters())
        #expect(!sending.inbandFEC, "useinbandfec absent: the peer cannot use FEC")
        #expect(!sending.discontinuousTransmission)
        #expect(sending.bitrate == ours.bitrate)
        #expect(sending.maximumBandwidth == .fullband)
        #expect(sending.bitrateMode == .constrainedVBR)
        #expect(sending.frameDurationMs == 20)
    }

    @Test func inbandFECOnlyWhenThePeerCanUseIt() throws {
        #expect(try ours.applying(peer: peer("useinbandfec=1")).inbandFEC)
        #expect(try !ours.applying(peer: peer("useinbandfec=0")).inbandFEC)
        var noFEC = ours
        noFEC.inbandFEC = false
        #expect(try !noFEC.applying(peer: peer("useinbandfec=1")).inbandFEC, "the peer's wish does not override ours")
        // In the packets: loss planned, yet no FEC for a peer that cannot use it.
        for (text, expectsFEC) in [("useinbandfec=1", true), ("useinbandfec=0", false)] {
            var sending = try ours.applying(peer: peer(text))
            sending.expectedPacketLossPercent = 10
            let fec = try sentPackets(sending).filter(\.info.hasFEC).count
            #expect(expectsFEC ? fec > 100 : fec == 0, "\(text): \(fec) packets with FEC")
        }
    }

    @Test func dtxWhenThePeerPrefersIt() throws {
        #expect(try ours.applying(peer: peer("usedtx=1")).discontinuousTransmission)
        var withDTX = ours
        withDTX.discontinuousTransmission = true
        #expect(try !withDTX.applying(peer: peer("usedtx=0")).discontinuousTransmission)
        #expect(try !withDTX.applying(peer: OpusFormatParameters()).discontinuousTransmission)
        // In the packets: silence is suppressed only for a peer that asked for DTX.
        for (text, expectsDTX) in [("usedtx=1", true), ("usedtx=0", false)] {
            let uplink = try UplinkPipeline(configuration: try ours.applying(peer: peer(text)), ssrc: 1)
            let silence = [Int16](repeating: 0, count: 960)
            for _ in 0..<100 { _ = try silence.withUnsafeBufferPointer { try uplink.process($0) } }
            #expect((uplink.statistics.framesSuppressedByDTX > 50) == expectsDTX, "\(text)")
        }
    }

    @Test func bitrateCappedAtMaxAverageBitrate() throws {
        #expect(try ours.applying(peer: peer("maxaveragebitrate=16000")).bitrate == 16_000)
        #expect(try ours.applying(peer: peer("maxaveragebitrate=64000")).bitrate == MediaConfiguration.defaultBitrate, "a cap never raises ours")
        #expect(try ours.applying(peer: peer("maxaveragebitrate=6000")).bitrate == 6_000)
        // In the packets: about 12 kb/s of payload, not our 24.
        let sending = try ours.applying(peer: peer("maxaveragebitrate=12000"))
        let packets = try sentPackets(sending)
        let payloadBitsPerSecond = Double(packets.map(\.bytes).reduce(0, +) * 8) / (Double(packets.count) * 0.02)
        #expect(payloadBitsPerSecond < 13_000 && payloadBitsPerSecond > 9_000, "\(payloadBitsPerSecond) b/s")
        let uplink = try UplinkPipeline(configuration: sending, ssrc: 1)
        #expect(uplink.statistics.targetBitrate == 12_000)
    }

    @Test(arguments: [(8_000, OpusBandwidth.narrowband), (12_000, .mediumband), (16_000, .wideband), (24_000, .superwideband),
                      (32_000, .superwideband), (44_100, .fullband), (48_000, .fullband)])
    func maxPlaybackRateCapsTheBandwidth(rate: Int, bandwidth: OpusBandwidth) throws {
        // At our 24 kb/s, speech is coded fullband (hybrid) without a cap.
        let sending = try ours.applying(peer: peer("maxplaybackrate=\(rate)"))
        #expect(sending.maximumBandwidth == bandwidth)
        let packets = try sentPackets(sending, frames: 100)
        let widest = packets.map(\.info.bandwidth.passbandHz).max() ?? 0
        #expect(widest <= bandwidth.passbandHz, "\(rate) Hz: packets up to \(widest) Hz of passband")
        #expect(packets.contains { $0.info.bandwidth == bandwidth }, "\(rate) Hz: the cap is what speech gets")
        if bandwidth != .fullband {
            // Never widened past our own cap.
            var narrow = ours
            narrow.maximumBandwidth = .narrowband
            #expect(try narrow.applying(peer: peer("maxplaybackrate=\(rate)")).maximumBandwidth == .narrowband)
        }
    }

    @Test func stereoPreferenceStillSendsMono() throws {
        let sending = try ours.applying(peer: peer("stereo=1;sprop-stereo=1"))
        #expect(try sending == ours.applying(peer: OpusFormatParameters()))
        #expect(try sentPackets(sending, frames: 20).allSatisfy { $0.info.channelCount == 1 })
    }

    @Test func constantBitrateWhenThePeerPrefersIt() throws {
        #expect(try ours.applying(peer: peer("cbr=1")).bitrateMode == .cbr)
        #expect(try ours.applying(peer: peer("cbr=0")).bitrateMode == .constrainedVBR)
        var cbr = ours
        cbr.bitrateMode = .cbr
        #expect(try cbr.applying(peer: peer("cbr=0")).bitrateMode == .cbr, "cbr=0 is no demand for VBR")
        // In the packets: every packet the same size under CBR; speech varies them under VBR.
        let constant = Set(try sentPackets(try ours.applying(peer: peer("cbr=1"))).map(\.bytes))
        let variable = Set(try sentPackets(try ours.applying(peer: peer("cbr=0"))).map(\.bytes))
        #expect(constant.count == 1, "\(constant)")
        #expect(variable.count > 10)
    }

    @Test func packetTimeFromPtime() throws {
        // Supported values are taken as they are.
        for ptime in [10, 20, 40, 60] {
            #expect(try ours.applying(peer: OpusFormatParameters(), ptime: ptime).frameDurationMs == ptime)
        }
        // Otherwise the nearest supported below; the shortest when none is below.
        let nearest: [(Int, Int)] = [(1, 10), (5, 10), (15, 10), (30, 20), (50, 40), (90, 60), (120, 60)]
        for (ptime, expected) in nearest {
            #expect(try ours.applying(peer: OpusFormatParameters(), ptime: ptime).frameDurationMs == expected, "ptime \(ptime)")
        }
        // The a=ptime attribute wins over an fmtp ptime; the fmtp's is used without one.
        #expect(try ours.applying(peer: peer("ptime=40"), ptime: 60).frameDurationMs == 60)
        #expect(try ours.applying(peer: peer("ptime=40")).frameDurationMs == 40)
        // maxptime bounds it; minptime too, while a supported time satisfies both.
        #expect(try ours.applying(peer: peer("maxptime=30"), ptime: 60).frameDurationMs == 20)
        #expect(try ours.applying(peer: peer("minptime=40"), ptime: 20).frameDurationMs == 40)
        #expect(try ours.applying(peer: peer("minptime=90;maxptime=60"), ptime: 20).frameDurationMs == 20)
        #expect(try ours.applying(peer: peer("minptime=10")).frameDurationMs == 20, "no ptime: ours")
        // In the packets: 40 ms frames.
        let sending = try ours.applying(peer: OpusFormatParameters(), ptime: 40)
        #expect(sending.samplesPerFrame == 1_920)
        #expect(try sentPackets(sending, frames: 10).allSatisfy { $0.info.sampleCount == 1_920 })
    }

    @Test func refusesWhatCannotBeHonoured() {
        #expect(throws: MediaConfigurationError.invalid(field: "maxptime",
                                                        reason: "5 ms is below every packet time this pipeline sends (10, 20, 40, 60 ms)")) {
            try ours.applying(peer: peer("maxptime=5"))
        }
        for ptime in [0, -20, 121, .max, .min] {
            #expect(throws: MediaConfigurationError.invalid(field: "ptime", reason: "\(ptime) ms is outside 1–120 ms")) {
                try ours.applying(peer: OpusFormatParameters(), ptime: ptime)
            }
        }
        var broken = ours
        broken.complexity = 11
        #expect(throws: MediaConfigurationError.invalid(field: "complexity", reason: "11 is outside 0–10")) {
            try broken.applying(peer: OpusFormatParameters())
        }
    }

    /// A WebRTC browser's fmtp, a narrowband gateway's, and our own answer read back.
    @Test func realOffers() throws {
        let browser = try ours.applying(peer: peer("minptime=10;useinbandfec=1"), ptime: 20)
        #expect(browser.inbandFEC && !browser.discontinuousTransmission && browser.bitrate == 32_000 && browser.frameDurationMs == 20)
        let gateway = try ours.applying(peer: peer("maxplaybackrate=8000; sprop-maxcapturerate=8000; maxaveragebitrate=12000; usedtx=1"),
                                        ptime: 20)
        #expect(gateway.maximumBandwidth == .narrowband && gateway.bitrate == 12_000 && gateway.discontinuousTransmission && !gateway.inbandFEC)
        #expect(ours.formatParameters.formatted == "useinbandfec=1")
        var wideband = ours
        wideband.sampleRate = 16_000
        wideband.discontinuousTransmission = true
        #expect(wideband.formatParameters.formatted == "maxplaybackrate=16000;sprop-maxcapturerate=16000;useinbandfec=1;usedtx=1")
        // Two of us meet: each sends what the other's answer asks for.
        let met = try ours.applying(peer: try OpusFormatParameters(parsing: wideband.formatParameters.formatted))
        #expect(met.maximumBandwidth == .wideband && met.inbandFEC && met.discontinuousTransmission)
    }
}
