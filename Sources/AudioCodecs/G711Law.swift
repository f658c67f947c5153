// SPDX-License-Identifier: Apache-2.0

/// G.711's two companding laws (ITU-T G.711, 1988): 16-bit linear PCM to 8-bit codes and back.
///
/// Encoding computes the segment from the magnitude's highest bit (no table: one count of
/// leading zeros per sample); decoding reads a 256-entry table built once, on first use.
public enum G711Law: Sendable, Hashable {
    /// μ-law (PCMU): magnitude biased by 132, 8 segments, codes sent inverted; symmetric
    /// about zero (two codes for zero).
    case muLaw
    /// A-law (PCMA): 8 segments, the first two of equal step, even bits inverted (XOR 0x55);
    /// negative samples coded from their one's complement (no code for zero).
    case aLaw

    /// The codec this law is sent as in RTP.
    public var codec: AudioCodec { self == .muLaw ? .pcmu : .pcma }

    /// The code for one linear sample.
    @inline(__always)
    public func encode(_ sample: Int16) -> UInt8 {
        switch self {
        case .muLaw: Self.muLawCode(Int(sample))
        case .aLaw: Self.aLawCode(Int(sample))
        }
    }

    /// The linear sample one code stands for.
    @inline(__always)
    public func decode(_ code: UInt8) -> Int16 {
        switch self {
        case .muLaw: G711Tables.muLawDecode[Int(code)]
        case .aLaw: G711Tables.aLawDecode[Int(code)]
        }
    }

    /// Makes sure the decoding tables exist (the first use builds them: do it off the audio thread).
    func prepareTables() { _ = decode(0) }

    /// The segment of a magnitude: how far its highest bit stands above bit 7 (0 below).
    @inline(__always)
    private static func segment(of magnitude: Int) -> Int {
        (Int.bitWidth - 1 - (magnitude | 0xFF).leadingZeroBitCount) - 7
    }

    @inline(__always)
    static func muLawCode(_ value: Int) -> UInt8 {
        let mask = value >= 0 ? 0xFF : 0x7F
        let biased = 0x84 + (value >= 0 ? value : -value)
        let segment = segment(of: biased)
        guard segment < 8 else { return UInt8(0x7F ^ mask) }
        return UInt8(((segment << 4) | ((biased >> (segment + 3)) & 0x0F)) ^ mask)
    }

    @inline(__always)
    static func aLawCode(_ value: Int) -> UInt8 {
        let mask = value >= 0 ? 0xD5 : 0x55
        let magnitude = value >= 0 ? value : -value - 1
        let segment = segment(of: magnitude)
        guard segment < 8 else { return UInt8(0x7F ^ mask) }
        return UInt8(((segment << 4) | ((magnitude >> (segment == 0 ? 4 : segment + 3)) & 0x0F)) ^ mask)
    }
}

/// The decoding tables behind `G711Law`, computed from G.711's segment rules.
enum G711Tables {
    /// Decodes every byte of `payload` into `output` through the law's table.
    static func decode(_ payload: UnsafeRawBufferPointer, law: G711Law, into output: UnsafeMutablePointer<Int16>) {
        let table = law == .muLaw ? muLawDecode : aLawDecode
        table.withUnsafeBufferPointer { table in
            for index in 0..<payload.count { output[index] = table[Int(payload[index])] }
        }
    }

    static let muLawDecode: [Int16] = (0...255).map { muLawLinear(UInt8($0)) }
    static let aLawDecode: [Int16] = (0...255).map { aLawLinear(UInt8($0)) }

    static func muLawLinear(_ code: UInt8) -> Int16 {
        let inverted = Int(~code)
        let segment = (inverted >> 4) & 0x07
        let magnitude = (((inverted & 0x0F) << 3) + 0x84) << segment
        return Int16((inverted & 0x80) != 0 ? 0x84 - magnitude : magnitude - 0x84)
    }

    static func aLawLinear(_ code: UInt8) -> Int16 {
        let value = Int(code ^ 0x55)
        let segment = (value & 0x70) >> 4
        var magnitude = (value & 0x0F) << 4
        magnitude = segment == 0 ? magnitude + 8 : (magnitude + 0x108) << (segment - 1)
        return Int16((value & 0x80) != 0 ? magnitude : -magnitude)
    }
}
