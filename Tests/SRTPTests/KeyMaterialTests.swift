// SPDX-License-Identifier: Apache-2.0
import Foundation
@testable import SRTP
import Testing

/// Issue 16, "Hardening": key material in errors, descriptions and memory. No error or
/// description of ours shows a byte of a key; the buffers we own are zeroed when done.
@Suite struct KeyMaterialTests {
    static let base64 = SDESCryptoAttributeTests.base64

    /// Every 6-character run of the key's base64 (36 bits, what the demo used to print).
    static func leaks(_ text: String, key: String = base64) -> Bool {
        let characters = Array(key)
        return (0...(characters.count - 6)).contains { text.contains(String(characters[$0..<($0 + 6)])) }
    }

    /// Lines with the key where another field belongs: each error still names what failed,
    /// and none quotes the key. (`unsupportedKeyMethod` used to echo the whole key parameter.)
    @Test(arguments: [
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 \(base64)", SDESError.missingField("key-method")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 \(base64)|2^20|1:4", .unsupportedKeyMethod("<47 characters>")),
        ("a=crypto:1 inline:\(base64)", .unsupportedSuite("<47 characters>")),
        ("a=crypto:\(base64) AES_CM_128_HMAC_SHA1_80 inline:\(base64)", .invalidTag("<40 characters>")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)!", .invalidBase64(characterCount: 41)),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|\(base64)", .invalidLifetime("<40 characters>")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|1:\(base64)", .invalidMKI("<42 characters>")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|1:4|\(base64):4", .invalidMKI("<42 characters>")),
    ] as [(String, SDESError)])
    func parseErrorsNeverQuoteTheKey(line: String, expected: SDESError) throws {
        let error = #expect(throws: SDESError.self) { try SDESCryptoAttribute(parsing: line) }
        #expect(error == expected)
        for text in ["\(String(describing: error))", String(reflecting: error), dumped(error)] {
            #expect(!Self.leaks(text), "\(text)")
        }
    }

    /// Short fields that cannot be keys are still quoted, so the error says what was wrong.
    @Test func harmlessFieldsAreStillQuoted() {
        #expect(throws: SDESError.unsupportedSuite("F8_128_HMAC_SHA1_80")) {
            try SDESCryptoAttribute(parsing: "1 F8_128_HMAC_SHA1_80 inline:\(Self.base64)")
        }
        #expect(throws: SDESError.unsupportedKeyMethod("uri")) { try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 uri:x") }
        #expect(throws: SDESError.invalidLifetime("2^x")) {
            try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)|2^x")
        }
    }

    /// What interpolation, `print`, `debugPrint` and `dump` show of an attribute and its keying
    /// material: the suite, tag, lifetime and MKI, never the key.
    @Test func descriptionsAndDumpsShowNoKey() throws {
        let attribute = try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)|2^31|1:4")
        #expect("\(attribute)" == "1 AES_CM_128_HMAC_SHA1_80 inline:<key>|2^31|1:4")
        let keys = attribute.keyingMaterial
        let bytes = keys.keyAndSalt.map(String.init).joined(separator: ", ")
        for text in ["\(attribute)", String(reflecting: attribute), dumped(attribute), "\(keys)", String(reflecting: keys), dumped(keys)] {
            #expect(!Self.leaks(text), "\(text)")
            #expect(!text.contains(bytes) && !text.contains("225") && !text.contains("0xe1"), "\(text)")
        }
        #expect(Self.leaks(attribute.attributeValue))  // the one place the key is meant to be
    }

    /// The wiping primitive the base64 buffers and the key storage use.
    @Test func wipeZeroesTheBuffer() {
        var bytes: [UInt8] = Array(1...46)
        SecretBytes.wipe(&bytes)
        #expect(bytes == [UInt8](repeating: 0, count: 46))
        let secret = SecretBytes(count: 4) { $0.copyBytes(from: [1, 2, 3, 4]) }
        #expect(secret.withUnsafeBytes { Array($0) } == [1, 2, 3, 4])
        #expect(secret.constantTimeEquals(SecretBytes(count: 4) { $0.copyBytes(from: [1, 2, 3, 4]) }))
        #expect(!secret.constantTimeEquals(SecretBytes(count: 4) { $0.copyBytes(from: [1, 2, 3, 5]) }))
    }

    /// Keying material keeps working through the owned storage: copies compare equal, the
    /// accessors give the parts, and a session built from it round-trips.
    @Test func keyingMaterialStorageRoundTrips() throws {
        let keys = try SRTPKeyingMaterial(profile: .aesCM128HmacSha1_80, keyAndSalt: SDESCryptoAttributeTests.keySalt)
        #expect(keys.masterKey == Array(SDESCryptoAttributeTests.keySalt[..<16]))
        #expect(keys.masterSalt == Array(SDESCryptoAttributeTests.keySalt[16...]))
        #expect(keys == (try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)").keyingMaterial))
        #expect(keys != .random(profile: .aesCM128HmacSha1_80))
        let copy = keys
        #expect(copy == keys)
    }

    private func dumped(_ value: some Any) -> String {
        var text = ""
        dump(value, to: &text)
        return text
    }
}
