// SPDX-License-Identifier: Apache-2.0
@testable import CallCore
import MediaEngineTesting
import Opus
import RTP
import Testing
import TestSupport

/// `SpeechPacketFilter`: the bitrate a sender speaks at, not its average over the pauses.
@Suite struct SpeechPacketFilterTests {
    /// Turns: 250 packets of talk (70 bytes, as VBR speech at 24 kb/s), 250 of the other side's turn
    /// (20 bytes, as libopus VBR codes silence), twice: the first second of each pause still
    /// belongs to the talk (a pause between words), the rest not; DTX's packets never.
    @Test func pausesAndDTXAreNotSpeech() {
        var filter = SpeechPacketFilter()
        var speech = 0
        var pause = 0
        for turn in 0..<4 {
            for _ in 0..<250 {
                if filter.isSpeech(payloadBytes: turn % 2 == 0 ? 70 : 20) { if turn % 2 == 0 { speech += 1 } else { pause += 1 } }
            }
        }
        #expect(speech == 500)
        #expect(pause == 2 * SpeechPacketFilter.pauseHangover)
        let dtx = filter.isSpeech(payloadBytes: 1)
        let empty = filter.isSpeech(payloadBytes: 0)
        #expect(!dtx && !empty)
    }

    /// Constant bitrate: every packet is speech; a louder passage (VBR's larger packets) does
    /// not make the ordinary ones look like pauses.
    @Test func constantAndVaryingSpeechCounts() {
        var filter = SpeechPacketFilter()
        var constant = 0
        var varying = 0
        for index in 0..<100 {
            if filter.isSpeech(payloadBytes: 60) { constant += 1 }
            if filter.isSpeech(payloadBytes: index % 2 == 0 ? 90 : 50) { varying += 1 }
        }
        #expect(constant == 100)
        #expect(varying == 100)
    }

    /// The call's estimate: a sender set to 24 kb/s talks at 22.6 kb/s of payload (constrained
    /// VBR) and in turns averages less still over all its packets; the codec impairment is
    /// Opus's at the encoder's 24 kb/s (Ie,WB 32.9), as PESQ hears it.
    @Test func theEstimateTakesTheSpeakingBitrate() {
        var inbound = EModelTests.inbound(lost: 0)
        inbound.bytesReceived = 84_862 + 1_500 * 12
        inbound.speechPacketsReceived = 1_500
        inbound.speechBytesReceived = 84_862
        let inputs = VoIPMetricsInputs(inbound: inbound, burstGap: BurstGapStatistics(), configuration: MediaConfiguration(), deviceDelayMs: 30)
        #expect(abs((inputs.receivedBitsPerSecond ?? 0) - 22_630) < 1)
        #expect(abs((inputs.senderBitsPerSecond ?? 0) - 24_000) < 1)
        let impairment = CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: 0.06).codecImpairment.equipmentImpairment
        #expect(abs(impairment - 32.9) < 0.01)
    }

    /// A clean call at each of three bitrates, each side saying its fixture, is scored as Opus
    /// at the bitrate its senders are set to: the two directions' mean Ie,WB within a quarter of
    /// the way to that of 90 % of the bitrate. What a receiver counts is 92–94 % of it, and
    /// looked up as counted, a 32 kb/s call read as a 29.5 kb/s one (fails if libopus's VBR
    /// spends otherwise, or the filter counts otherwise).
    @Test(arguments: [16_000, 24_000, 32_000])
    func aCleanCallIsScoredAtItsSendersBitrate(bitrate: Int) throws {
        var configuration = MediaConfiguration()
        configuration.bitrate = bitrate
        configuration.minimumBitrate = min(configuration.minimumBitrate, bitrate)
        let loop = try CallLoop(configuration: configuration)
        let alice = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let bob = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: 48_000)
        loop.run(frames: max(alice.count, bob.count) / 960, aliceMicrophone: { index, _ in CallLoop.frame(index, of: alice, length: 960) },
                 bobMicrophone: { index, _ in CallLoop.frame(index, of: bob, length: 960) })
        let heard = try [loop.bob, loop.alice].map { try #require($0.call.statistics.quality).codecImpairment.equipmentImpairment }
        let mean = heard.reduce(0, +) / 2
        let expected = CodecImpairment.opus(bitsPerSecond: Double(bitrate)).equipmentImpairment
        let payloadRate = CodecImpairment.opus(bitsPerSecond: Double(bitrate) * 0.9).equipmentImpairment
        #expect(abs(mean - expected) < 0.25 * (payloadRate - expected),
                "\(bitrate) b/s scored as Ie,WB \(heard) (Bob, Alice hearing), the encoder's \(expected)")
    }
}

extension SpeechPacketFilterTests {
    /// libopus's own packets for the fixtures at 24 kb/s (VBR, as a call sends them): the talk
    /// is every packet (their pauses are short), so the bitrate is the encoder's average over
    /// them, the figure the Opus impairment factors were measured at.
    @Test func theFixturesAreTalkThroughout() throws {
        for name in [SpeechFixture.alice, SpeechFixture.bob] {
            let pcm = try SpeechFixture.samples(name, sampleRate: 48_000)
            let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
            try encoder.setBitrate(.bitsPerSecond(24_000))
            var filter = SpeechPacketFilter()
            var packet = [UInt8](repeating: 0, count: 1_500)
            var talk = 0
            var packets = 0
            for start in stride(from: 0, to: pcm.count - 960, by: 960) {
                let size = try pcm.withUnsafeBufferPointer { pcm in
                    try packet.withUnsafeMutableBytes { try encoder.encode(UnsafeBufferPointer(rebasing: pcm[start..<(start + 960)]), into: $0) }
                }
                packets += 1
                if filter.isSpeech(payloadBytes: size) { talk += 1 }
            }
            #expect(talk >= packets - 2, "\(name): \(talk) of \(packets)")
        }
    }
}
