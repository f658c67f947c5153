// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import CSpanDSP
import Foundation
import Testing

/// G.711 against its reference conversions (spandsp's, which pass ITU-T's tests) on every
/// input, and its codec interface.
@Suite struct G711Tests {
    /// spandsp's `g711_encode`/`g711_decode` over every 16-bit sample and every code.
    static func reference(_ law: G711Law) -> (codes: [UInt8], samples: [Int16]) {
        let state = g711_init(nil, law == .muLaw ? Int32(G711_ULAW) : Int32(G711_ALAW))
        defer { g711_free(state) }
        var every = (Int(Int16.min)...Int(Int16.max)).map { Int16($0) }
        var codes = [UInt8](repeating: 0, count: every.count)
        _ = every.withUnsafeMutableBufferPointer { pcm in
            codes.withUnsafeMutableBufferPointer { g711_encode(state, $0.baseAddress, pcm.baseAddress, Int32(pcm.count)) }
        }
        var allCodes = (0...255).map { UInt8($0) }
        var samples = [Int16](repeating: 0, count: 256)
        _ = allCodes.withUnsafeMutableBufferPointer { input in
            samples.withUnsafeMutableBufferPointer { g711_decode(state, $0.baseAddress, input.baseAddress, 256) }
        }
        every.removeAll()
        return (codes, samples)
    }

    @Test(arguments: [G711Law.muLaw, .aLaw])
    func everySampleAndCodeAsTheReference(law: G711Law) {
        let reference = Self.reference(law)
        var mismatches = 0
        for value in Int(Int16.min)...Int(Int16.max) where law.encode(Int16(value)) != reference.codes[value - Int(Int16.min)] {
            mismatches += 1
        }
        #expect(mismatches == 0, "\(law): \(mismatches) samples encode differently")
        #expect((0...255).map { law.decode(UInt8($0)) } == reference.samples)
    }

    /// The values G.711's tables give at the ends and around zero, and every code surviving a
    /// round trip (μ-law's negative zero, 0x7F, comes back as positive zero, 0xFF).
    @Test func knownCodesAndRoundTrips() {
        #expect(G711Law.muLaw.encode(0) == 0xFF && G711Law.muLaw.decode(0x80) == 32_124 && G711Law.muLaw.decode(0x00) == -32_124)
        #expect(G711Law.aLaw.encode(0) == 0xD5 && G711Law.aLaw.decode(0xD5) == 8 && G711Law.aLaw.decode(0x55) == -8)
        #expect(G711Law.aLaw.decode(0xAA) == 32_256 && G711Law.aLaw.decode(0x2A) == -32_256)
        for code in UInt8.min...UInt8.max {
            let expected = code == 0x7F ? 0xFF : code
            #expect(G711Law.muLaw.encode(G711Law.muLaw.decode(code)) == expected)
            #expect(G711Law.aLaw.encode(G711Law.aLaw.decode(code)) == code)
        }
    }

    /// A full-scale-ish tone keeps G.711's ~38 dB signal-to-quantization ratio through the
    /// codec interface, one byte per sample.
    @Test func aToneThroughEncoderAndDecoder() throws {
        for law in [G711Law.muLaw, .aLaw] {
            let encoder = G711Encoder(law: law), decoder = G711Decoder(law: law)
            let tone = (0..<160).map { Int16(10_000 * sin(2 * Double.pi * 1_000 * Double($0) / 8_000)) }
            var payload = [UInt8](repeating: 0, count: 160), decoded = [Int16](repeating: 0, count: 160)
            let bytes = try tone.withUnsafeBufferPointer { pcm in
                try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            #expect(bytes == 160)
            let info = try payload.withUnsafeBytes { try decoder.packetInfo($0) }
            #expect(info == AudioPacketInfo(sampleCount: 160, hasFEC: false))
            let count = try payload.withUnsafeBytes { bytes in try decoded.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
            #expect(count == 160)
            var signalEnergy = 0.0, noiseEnergy = 0.0
            for (original, coded) in zip(tone, decoded) {
                let difference = Double(original) - Double(coded)
                signalEnergy += Double(original) * Double(original)
                noiseEnergy += difference * difference
            }
            let snr = 10 * log10(signalEnergy / noiseEnergy)
            #expect(snr > 33, "\(law): \(snr) dB")
        }
    }

    @Test func refusesWhatIsNotAPayloadOrDoesNotFit() throws {
        let decoder = G711Decoder(law: .muLaw)
        #expect(throws: AudioCodecError.invalidPacket(.pcmu, byteCount: 0)) { try [UInt8]().withUnsafeBytes { try decoder.packetInfo($0) } }
        let long = [UInt8](repeating: 0xFF, count: G711Decoder.maximumPayloadBytes + 1)
        #expect(throws: AudioCodecError.self) { try long.withUnsafeBytes { try decoder.packetInfo($0) } }
        var small = [Int16](repeating: 0, count: 80)
        #expect(throws: AudioCodecError.bufferTooSmall(.pcmu, needed: 160, available: 80)) {
            try [UInt8](repeating: 0xFF, count: 160).withUnsafeBytes { bytes in try small.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
        }
        let encoder = G711Encoder(law: .aLaw)
        var payload = [UInt8](repeating: 0, count: 10)
        #expect(throws: AudioCodecError.bufferTooSmall(.pcma, needed: 160, available: 10)) {
            try [Int16](repeating: 0, count: 160).withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) } }
        }
    }
}
