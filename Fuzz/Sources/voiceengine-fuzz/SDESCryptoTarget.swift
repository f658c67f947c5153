// SPDX-License-Identifier: Apache-2.0
import Foundation
import SRTP

/// `SDESCryptoAttribute(parsing:)` over any text: what parses writes an attribute line that
/// parses to the same attribute, and its description never shows the key.
enum SDESCryptoTarget {
    static let target = FuzzTarget(name: "sdes", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        let attribute: SDESCryptoAttribute
        do {
            attribute = try SDESCryptoAttribute(parsing: line)
        } catch {
            blackHole(error.description)
            return
        }
        let written = attribute.attributeLine
        let again = try? SDESCryptoAttribute(parsing: written)
        check(again == attribute, "attributeLine does not parse back to the same attribute")
        let description = attribute.description
        let keyText = written.split(separator: "inline:").dropFirst().first.map { String($0.prefix(16)) } ?? ""
        // The key's text may also appear in a session parameter the peer sent; the description
        // must show it fewer times than the line does (never the key field itself).
        check(keyText.count < 16 || occurrences(of: keyText, in: description) < occurrences(of: keyText, in: written),
              "description shows key material")
    }

    static func occurrences(of text: String, in string: String) -> Int {
        string.components(separatedBy: text).count - 1
    }

    static func seeds() throws -> [[UInt8]] {
        [
            "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4",
            "a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:NzB4d1BINUAvLEw6UzF3WSJ+PSdFcGdUJShpX1Zj\r",
            "crypto:7 AEAD_AES_256_GCM inline:MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDEyMzQ1Njc4OTA= KDR=1",
            "3 AES_256_CM_HMAC_SHA1_80 inline:MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDEyMzQ1Njc4OTAx|2^31",
            // A session parameter starting with a combining mark after a tab: once split by
            // characters, it did not survive being written back after a space.
            "a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|200 a\t\u{0FBA}AES_C 1",
        ].map { Array($0.utf8) }
    }
}
