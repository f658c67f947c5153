// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import TestSupport
import Testing

/// G.722 through spandsp: 64 kb/s, two samples a byte, wideband tones kept.
@Suite struct G722Tests {
    @Test func wideTonesSurviveAndPayloadsAreHalfTheSamples() throws {
        let encoder = try G722Encoder(), decoder = try G722Decoder()
        var decoded: [Int16] = []
        var payload = [UInt8](repeating: 0, count: 160), frame = [Int16](repeating: 0, count: 320)
        for index in 0..<50 {  // 1 s
            let pcm = (0..<320).map { n -> Int16 in
                let t = Double(index * 320 + n) / 16_000
                return Int16(6_000 * sin(2 * Double.pi * 1_000 * t) + 6_000 * sin(2 * Double.pi * 6_000 * t))
            }
            let bytes = try pcm.withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) } }
            #expect(bytes == 160)
            #expect(try payload.withUnsafeBytes { try decoder.packetInfo($0) }.sampleCount == 320)
            let count = try payload.withUnsafeBytes { bytes in try frame.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
            #expect(count == 320)
            decoded += frame
        }
        let steady = decoded.suffix(8_000)
        // 6 kHz is above anything narrowband carries: G.722's upper sub-band keeps it.
        #expect(SignalComparison.toneAmplitude(steady, frequencyHz: 1_000, sampleRate: 16_000) > 5_000)
        #expect(SignalComparison.toneAmplitude(steady, frequencyHz: 6_000, sampleRate: 16_000) > 4_000)
        #expect(SignalComparison.toneAmplitude(steady, frequencyHz: 3_500, sampleRate: 16_000) < 300)
    }

    @Test func refusesAnOddFrameAndAnEmptyPayload() throws {
        let encoder = try G722Encoder(), decoder = try G722Decoder()
        var payload = [UInt8](repeating: 0, count: 200)
        #expect(throws: AudioCodecError.invalidFrame(.g722, sampleCount: 321)) {
            try [Int16](repeating: 0, count: 321).withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) } }
        }
        #expect(throws: AudioCodecError.invalidPacket(.g722, byteCount: 0)) { try [UInt8]().withUnsafeBytes { try decoder.packetInfo($0) } }
    }
}
