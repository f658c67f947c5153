// SPDX-License-Identifier: Apache-2.0
@testable import CallCore
import MediaEngineTesting
import Opus
import RTP
import Testing
import TestSupport

/// `SpeechPacketFilter`: the bitrate a sender speaks at, not its average over the pauses.
@Suite struct SpeechPacketFilterTests {
    /// Turns: 250 packets of talk (70 bytes, as VBR speech at 24 kb/s, with a pause of 40
    /// packets of 20 bytes in the middle, as libopus VBR codes silence), then 250 of the other
    /// side's turn (20 bytes), twice: the pauses within talk count once the next word comes, the
    /// other side's turns never (nor the hangover after the last word: no word follows it); DTX's
    /// packets never.
    @Test func pausesWithinTalkCountButTurnsAndDTXDoNot() {
        var filter = SpeechPacketFilter()
        var counted = SpeechPacketFilter.Talk()
        var countedDuringTurns = 0
        for turn in 0..<4 {
            for index in 0..<250 {
                let isTalk = turn % 2 == 0 && !(100..<140).contains(index)
                let talk = filter.talk(payloadBytes: isTalk ? 70 : 20)
                counted.packets += talk.packets
                counted.bytes += talk.bytes
                if turn % 2 == 1 { countedDuringTurns += talk.packets }
            }
        }
        #expect(countedDuringTurns == 0)
        #expect(counted == SpeechPacketFilter.Talk(packets: 500, bytes: 2 * (210 * 70 + 40 * 20)))
        #expect(filter.talk(payloadBytes: 1) == SpeechPacketFilter.Talk())
        #expect(filter.talk(payloadBytes: 0) == SpeechPacketFilter.Talk())
    }

    /// The far end's silence before it first speaks (a peak set by its first, louder packets)
    /// is no talk: only its words and the pauses between them are.
    @Test func silenceBeforeTheFirstWordsIsNotTalk() {
        var filter = SpeechPacketFilter()
        var counted = 0
        for _ in 0..<10 { counted += filter.talk(payloadBytes: 60).packets }  // the encoder's first frames
        for _ in 0..<400 { counted += filter.talk(payloadBytes: 18).packets }  // silence
        #expect(counted == 10)
        for _ in 0..<100 { counted += filter.talk(payloadBytes: 80).packets }  // talk
        #expect(counted == 110)
    }

    /// Constant bitrate: every packet is speech; a louder passage (VBR's larger packets) does
    /// not make the ordinary ones look like pauses.
    @Test func constantAndVaryingSpeechCounts() {
        var filter = SpeechPacketFilter()
        var varyingFilter = SpeechPacketFilter()
        var constant = 0
        var varying = 0
        for index in 0..<100 {
            constant += filter.talk(payloadBytes: 60).packets
            varying += varyingFilter.talk(payloadBytes: index % 2 == 0 ? 90 : 50).packets
        }
        #expect(constant == 100)
        #expect(varying == 100)
    }

    /// The call's estimate: a sender set to 24 kb/s talks at 23.25 kb/s of payload (constrained
    /// VBR) and in turns averages less still over all its packets; the codec impairment is
    /// Opus's at the encoder's 24 kb/s (Ie,WB 32.9), as PESQ hears it.
    @Test func theEstimateTakesTheSpeakingBitrate() {
        var inbound = EModelTests.inbound(lost: 0)
        inbound.bytesReceived = 87_188 + 1_500 * 12
        inbound.speechPacketsReceived = 1_500
        inbound.speechBytesReceived = 87_188
        let inputs = VoIPMetricsInputs(inbound: inbound, burstGap: BurstGapStatistics(), configuration: MediaConfiguration(), deviceDelayMs: 30)
        #expect(abs((inputs.receivedBitsPerSecond ?? 0) - 23_250) < 1)
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
    /// is every packet from the first word to the last (their pauses are short), the span
    /// `CodecImpairment.opusPayloadRates` gives the encoder's payload rate over.
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
                talk += filter.talk(payloadBytes: size).packets
            }
            // Every packet but the silence after the last word (0.4 s): no word follows it.
            #expect(talk >= packets - 25 && talk < packets, "\(name): \(talk) of \(packets)")
        }
    }
}
