// SPDX-License-Identifier: Apache-2.0
@testable import CallCore
import MediaEngineTesting
import Opus
import RTP
import Testing
import TestSupport

/// `SpeechPacketFilter`: the bitrate a sender speaks at, not its average over the pauses.
@Suite struct SpeechPacketFilterTests {
    /// Turns, after the encoder's first half second of silence (20 bytes, as libopus VBR codes
    /// it): 250 packets of talk (70 bytes, as VBR speech at 24 kb/s, with a pause of 40 packets
    /// in the middle), then 250 of the other side's turn (silence), twice: the pauses within
    /// talk count once the next word comes, the other side's turns never (nor the hangover after
    /// the last word: no word follows it); DTX's packets never.
    @Test func pausesWithinTalkCountButTurnsAndDTXDoNot() {
        var filter = SpeechPacketFilter()
        var counted = SpeechPacketFilter.Talk()
        var countedDuringTurns = 0
        for _ in 0..<25 { counted.packets += filter.talk(payloadBytes: 20).packets }
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

    /// A far end silent from the start is not talking, whether its silence is all there is to
    /// set the peak or its first frames (the canceller learning an echo) were louder: only its
    /// words, which stand out of its silence, and the pauses between them are talk.
    @Test func silenceBeforeTheFirstWordsIsNotTalk() {
        var filter = SpeechPacketFilter()
        var counted = 0
        for _ in 0..<10 { counted += filter.talk(payloadBytes: 60).packets }  // the encoder's first frames
        for _ in 0..<400 { counted += filter.talk(payloadBytes: 18).packets }  // silence
        #expect(counted == 0)
        for _ in 0..<100 { counted += filter.talk(payloadBytes: 80).packets }  // talk
        #expect(counted == 100)
        var silentFromTheStart = SpeechPacketFilter()
        var silence = 0
        for _ in 0..<400 { silence += silentFromTheStart.talk(payloadBytes: 5).packets }
        #expect(silence == 0)
    }

    /// Constant bitrate: no packet stands out of the others, so none is judged talk (the bitrate
    /// is then read over every packet: `VoIPMetricsInputs.receivedBitsPerSecond`); VBR talk
    /// after a pause is talk throughout, its louder packets not making the ordinary ones pauses.
    @Test func constantAndVaryingSpeechCounts() {
        var filter = SpeechPacketFilter()
        var varyingFilter = SpeechPacketFilter()
        var constant = 0
        var varying = 0
        for _ in 0..<10 { _ = varyingFilter.talk(payloadBytes: 20) }
        for index in 0..<100 {
            constant += filter.talk(payloadBytes: 60).packets
            varying += varyingFilter.talk(payloadBytes: index % 2 == 0 ? 90 : 50).packets
        }
        #expect(constant == 0)
        #expect(varying == 100)
    }

    /// The call's estimate: a sender set to 24 kb/s talks at 23.36 kb/s of payload (constrained
    /// VBR) and in turns averages less still over all its packets; the codec impairment is
    /// Opus's at the encoder's 24 kb/s (Ie,WB 32.9), as PESQ hears it.
    @Test func theEstimateTakesTheSpeakingBitrate() {
        var inbound = EModelTests.inbound(lost: 0)
        inbound.bytesReceived = 87_600 + 1_500 * 12
        inbound.speechPacketsReceived = 1_500
        inbound.speechBytesReceived = 87_600
        let inputs = VoIPMetricsInputs(inbound: inbound, burstGap: BurstGapStatistics(), configuration: MediaConfiguration(), deviceDelayMs: 30)
        #expect(abs((inputs.receivedBitsPerSecond ?? 0) - 23_360) < 1)
        #expect(abs((inputs.senderBitsPerSecond ?? 0) - 24_000) < 1)
        let impairment = CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: 0.06).codecImpairment.equipmentImpairment
        #expect(abs(impairment - 32.9) < 0.01)
    }

    /// A clean call at each of three bitrates, each side saying its fixture, is scored as Opus
    /// at the bitrate its senders are set to: the two directions' mean Ie,WB within a quarter of
    /// the way to that of 90 % of the bitrate. What a receiver counts is 92–94 % of it, and
    /// looked up as counted, a 32 kb/s call read as a 29.5 kb/s one (fails if libopus's VBR
    /// spends otherwise, or the filter counts otherwise).
    @Test(arguments: [(16_000, 20), (24_000, 20), (32_000, 20), (32_000, 10)])
    func aCleanCallIsScoredAtItsSendersBitrate(bitrate: Int, frameDurationMs: Int) throws {
        var configuration = MediaConfiguration()
        configuration.bitrate = bitrate
        configuration.frameDurationMs = frameDurationMs
        configuration.minimumBitrate = min(configuration.minimumBitrate, bitrate)
        let loop = try CallLoop(configuration: configuration)
        let alice = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let bob = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: 48_000)
        let frame = 48 * frameDurationMs
        loop.run(frames: max(alice.count, bob.count) / frame, aliceMicrophone: { index, _ in CallLoop.frame(index, of: alice, length: frame) },
                 bobMicrophone: { index, _ in CallLoop.frame(index, of: bob, length: frame) })
        let heard = try [loop.bob, loop.alice].map { try #require($0.call.statistics.quality).codecImpairment.equipmentImpairment }
        let mean = heard.reduce(0, +) / 2
        let expected = CodecImpairment.opus(bitsPerSecond: Double(bitrate), frameDurationMs: frameDurationMs).equipmentImpairment
        let payloadRate = CodecImpairment.opus(bitsPerSecond: Double(bitrate) * 0.9, frameDurationMs: frameDurationMs).equipmentImpairment
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
            // Every packet but the silence before the first word (no quieter packet yet to stand
            // out of) and after the last (no word follows it): 0.5–0.7 s.
            #expect(talk >= packets - 35 && talk < packets, "\(name): \(talk) of \(packets)")
        }
    }
}
