// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import TestSupport
import Testing

/// The codec table, and coders at the call's rate.
@Suite struct AudioCodecTests {
    @Test func rtpFactsOfEachCodec() {
        #expect(AudioCodec(encodingName: "pcmu", clockRate: 8_000) == .pcmu)
        #expect(AudioCodec(encodingName: "OPUS", clockRate: 48_000) == .opus)
        #expect(AudioCodec(encodingName: "G722", clockRate: 16_000) == nil, "G.722's RTP clock is 8 kHz (RFC 3551)")
        #expect(AudioCodec(encodingName: "G722", clockRate: 8_000)?.nativeSampleRate == 16_000)
        #expect(AudioCodec(staticPayloadType: 8) == .pcma && AudioCodec(staticPayloadType: 9) == .g722 && AudioCodec(staticPayloadType: 111) == nil)
        #expect(AudioCodec.opus.capabilities.contains(.inbandFEC) && AudioCodec.pcmu.capabilities.isEmpty)
    }

    /// A 48 kHz call on G.711 or G.722: 960 samples in, a payload of the codec's size, 960
    /// out — every frame exact — and a tone comes through at its level.
    @Test(arguments: [AudioCodec.pcmu, .pcma, .g722])
    func codersAtTheCallsRate(codec: AudioCodec) throws {
        let encoder = try codec.makeEncoder(sampleRate: 48_000), decoder = try codec.makeDecoder(sampleRate: 48_000)
        #expect(encoder.sampleRate == 48_000 && decoder.sampleRate == 48_000 && encoder.codec == codec)
        var payload = [UInt8](repeating: 0, count: 400), frame = [Int16](repeating: 0, count: 960)
        var played: [Int16] = []
        for index in 0..<25 {
            let pcm = (0..<960).map { Int16(8_000 * sin(2 * Double.pi * 1_000 * Double(index * 960 + $0) / 48_000)) }
            let bytes = try pcm.withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) } }
            #expect(bytes == 160)
            let info = try payload.prefix(bytes).withUnsafeBytes { try decoder.packetInfo($0) }
            #expect(info.sampleCount == 960)
            let count = try payload.prefix(bytes).withUnsafeBytes { bytes in
                try frame.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) }
            }
            #expect(count == 960)
            played += frame
        }
        let level = SignalComparison.toneAmplitude(played.suffix(9_600), frequencyHz: 1_000, sampleRate: 48_000)
        #expect(level > 7_000 && level < 9_000, "\(codec): 1 kHz at \(level)")
        // Concealment at the call's rate: a 20 ms frame, continuing the tone.
        let concealed = try frame.withUnsafeMutableBufferPointer { try decoder.conceal(into: $0) }
        #expect(concealed == 960)
        #expect(SignalComparison.toneAmplitude(frame.prefix(480), frequencyHz: 1_000, sampleRate: 48_000) > 4_000)
        // A frame that is not a whole number of the codec's samples is refused.
        #expect(throws: AudioCodecError.self) {
            try [Int16](repeating: 0, count: 965).withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) } }
        }
    }

    @Test func opusRefusesARateItDoesNotCode() {
        #expect(throws: AudioCodecError.unsupportedSampleRate(.opus, 44_100)) { try AudioCodec.opus.makeEncoder(sampleRate: 44_100) }
        #expect(throws: AudioCodecError.unsupportedSampleRate(.opus, 44_100)) { try AudioCodec.opus.makeDecoder(sampleRate: 44_100) }
    }
}
