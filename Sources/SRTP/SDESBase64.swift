// SPDX-License-Identifier: Apache-2.0
/// Standard base64 (RFC 4648 §4) for SDES `inline:` key-salts. Encoding pads with `=`;
/// decoding accepts padded or unpadded input and rejects any other character.
///
/// What it handles is key material: the working buffers it fills are wiped before they are
/// released. The `String` the encoder returns, and the text the decoder reads, cannot be
/// (Swift strings are immutable values the runtime may copy or keep inline).
enum SDESBase64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `bytes`, padded.
    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        defer { SecretBytes.wipe(&output) }
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(group >> 18 & 63)])
            output.append(alphabet[Int(group >> 12 & 63)])
            output.append(remaining > 1 ? alphabet[Int(group >> 6 & 63)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(group & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes `text`; nil on a character outside the alphabet, misplaced padding or a
    /// dangling 6-bit group. The caller owns the bytes and should wipe them when done.
    static func decode(_ text: Substring) -> [UInt8]? {
        var symbols = Array(text.utf8)
        defer { SecretBytes.wipe(&symbols) }
        var padding = 0
        while symbols.last == UInt8(ascii: "=") {
            symbols.removeLast()
            padding += 1
        }
        guard padding <= 2, padding == 0 || (symbols.count + padding) % 4 == 0, symbols.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(symbols.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for symbol in symbols {
            guard let value = sextet(symbol) else {
                SecretBytes.wipe(&output)
                return nil
            }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return output
    }

    private static func sextet(_ symbol: UInt8) -> UInt8? {
        switch symbol {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return symbol - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return symbol - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return symbol - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
