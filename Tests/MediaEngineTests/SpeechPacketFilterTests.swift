// SPDX-License-Identifier: Apache-2.0
@testable import CallCore
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

    /// The call's estimate: a sender talking at 24 kb/s in turns averages 14.4 kb/s over all
    /// its packets; the codec impairment is Opus's at 24 kb/s (Ie,WB 32.9), as PESQ hears it.
    @Test func theEstimateTakesTheSpeakingBitrate() {
        var inbound = EModelTests.inbound(lost: 0)
        inbound.bytesReceived = 1_500 * 60 + 1_500 * 12
        inbound.speechPacketsReceived = 1_500
        inbound.speechBytesReceived = 1_500 * 60
        let inputs = VoIPMetricsInputs(inbound: inbound, burstGap: BurstGapStatistics(), configuration: MediaConfiguration(), deviceDelayMs: 30)
        #expect(inputs.receivedBitsPerSecond == 24_000)
        #expect(CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: 0.06).codecImpairment.equipmentImpairment == 32.9)
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
