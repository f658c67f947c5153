// SPDX-License-Identifier: Apache-2.0
import SRTP
import Testing

@Suite struct SDESCryptoAttributeTests {
    /// key||salt of the libsrtp self-test vector, base64.
    static let keySalt: [UInt8] = [
        0xe1, 0xf9, 0x7a, 0x0d, 0x3e, 0x01, 0x8b, 0xe0, 0xd6, 0x4f, 0xa3, 0x2c, 0x06, 0xde, 0x41, 0x39,
        0x0e, 0xc6, 0x75, 0xad, 0x49, 0x8a, 0xfe, 0xeb, 0xb6, 0x96, 0x0b, 0x3a, 0xab, 0xe6,
    ]
    static let base64 = "4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOqvm"

    @Test func parsesAndFormatsThePlainForm() throws {
        let line = "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)"
        let attribute = try SDESCryptoAttribute(parsing: line)
        #expect(attribute.tag == 1)
        #expect(attribute.profile == .aesCM128HmacSha1_80)
        #expect(attribute.keyingMaterial.keyAndSalt == Self.keySalt)
        #expect(attribute.lifetime == nil)
        #expect(attribute.masterKeyIdentifier == nil)
        #expect(attribute.sessionParameters.isEmpty)
        #expect(attribute.attributeValue == "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)")
        #expect(attribute.description == "1 AES_CM_128_HMAC_SHA1_80 inline:<key>")
        #expect(attribute.attributeLine == line)
    }

    @Test(arguments: [
        "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)",
        "crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)",
        "1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)",
        "  a=crypto:1\tAES_CM_128_HMAC_SHA1_80   inline:\(base64)\r\n",
    ])
    func acceptsEveryPrefixForm(line: String) throws {
        let attribute = try SDESCryptoAttribute(parsing: line)
        #expect(attribute.attributeValue == "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)")
    }

    @Test(arguments: [
        ("|2^31", SDESKeyLifetime.powerOfTwo(exponent: 31), nil as String?),
        ("|2147483648", .packets(2_147_483_648), nil),
        ("|2^31|1:4", .powerOfTwo(exponent: 31), "1:4"),
        ("|1:4", nil, "1:4"),
        ("|1048576|255:1", .packets(1_048_576), "255:1"),
    ] as [(String, SDESKeyLifetime?, String?)])
    func lifetimeAndMKIRoundTrip(suffix: String, lifetime: SDESKeyLifetime?, mki: String?) throws {
        let value = "7 AES_CM_128_HMAC_SHA1_32 inline:\(Self.base64)\(suffix)"
        let attribute = try SDESCryptoAttribute(parsing: "a=crypto:" + value)
        #expect(attribute.tag == 7)
        #expect(attribute.profile == .aesCM128HmacSha1_32)
        #expect(attribute.lifetime == lifetime)
        #expect(attribute.masterKeyIdentifier?.description == mki)
        #expect(attribute.attributeValue == value)
        #expect(try SDESCryptoAttribute(parsing: attribute.attributeLine) == attribute)
    }

    @Test func mkiValueAndBytes() throws {
        let attribute = try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)|2^20|258:4")
        let mki = try #require(attribute.masterKeyIdentifier)
        #expect(mki.value == 258 && mki.length == 4)
        #expect(mki.bytes == [0, 0, 1, 2])
        #expect(attribute.lifetime?.packetCount == 1 << 20)
    }

    @Test func sessionParametersArePreserved() throws {
        let value = "2 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)|2^31 KDR=1 UNENCRYPTED_SRTCP"
        let attribute = try SDESCryptoAttribute(parsing: "a=crypto:" + value)
        #expect(attribute.sessionParameters == ["KDR=1", "UNENCRYPTED_SRTCP"])
        #expect(attribute.attributeValue == value)
    }

    /// Fields are split on scalars: a session parameter that starts with a combining mark
    /// (after a tab, where it stands alone) is written back after a space, with which it would
    /// form one character. Found by the `sdes` fuzz target: the line written back parsed as
    /// another attribute. Trailing and leading whitespace is trimmed by scalars too.
    @Test(arguments: ["a\t\u{0FBA}b", "a \u{0301}", "\u{0301}x", "x\u{00A0}\u{0301}"])
    func sessionParametersStartingWithACombiningMarkRoundTrip(parameters: String) throws {
        let attribute = try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64) " + parameters)
        #expect(try SDESCryptoAttribute(parsing: attribute.attributeLine) == attribute)
    }

    /// Every profile: random keys formatted and parsed back, including the padded base64 of
    /// the 46-byte AES-256 key||salt and the 28-byte GCM one.
    @Test(arguments: SRTPProfile.allCases)
    func everyProfileRoundTrips(profile: SRTPProfile) throws {
        let keys = SRTPKeyingMaterial.random(profile: profile)
        let attribute = try SDESCryptoAttribute(tag: 3, keyingMaterial: keys, lifetime: .powerOfTwo(exponent: 31))
        let parsed = try SDESCryptoAttribute(parsing: attribute.attributeLine)
        #expect(parsed == attribute)
        // The attribute's keying material carries the lifetime it signals; the key is the same.
        #expect(parsed.keyingMaterial == (try keys.with(masterKeyIdentifier: nil, lifetimePackets: 1 << 31)))
        #expect(parsed.keyingMaterial.keyAndSalt == keys.keyAndSalt)
        #expect(attribute.attributeValue.hasPrefix("3 \(profile.sdesName) inline:"))
    }

    /// Keys parsed from SDES work in a session (the base64 maps to key||salt in libsrtp order).
    @Test func parsedKeyMatchesTheKnownAnswer() throws {
        let vector = try SRTPVector("libsrtp_aes_cm_128_hmac_sha1_80.txt")
        let attribute = try SDESCryptoAttribute(parsing: "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)")
        #expect(attribute.keyingMaterial == (try vector.keyingMaterial()))
    }

    @Test func unpaddedBase64IsAccepted() throws {
        let keys = SRTPKeyingMaterial.random(profile: .aes256CMHmacSha1_80)  // 46 bytes → "==" padding
        let attribute = try SDESCryptoAttribute(tag: 1, keyingMaterial: keys)
        #expect(attribute.attributeValue.hasSuffix("=="))
        let unpadded = String(attribute.attributeValue.dropLast(2))
        #expect(try SDESCryptoAttribute(parsing: unpadded).keyingMaterial == keys)
    }

    @Test(arguments: [
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYLOq!m", SDESError.invalidBase64(characterCount: 40)),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:4fl6DT4Bi+DWT6MsBt5BOQ7Gda1Jiv7rtpYL", .wrongKeyLength(expected: 30, actual: 27)),
        ("a=crypto:1 AEAD_AES_128_GCM inline:\(base64)", .wrongKeyLength(expected: 28, actual: 30)),
        ("a=crypto:1 F8_128_HMAC_SHA1_80 inline:\(base64)", .unsupportedSuite("F8_128_HMAC_SHA1_80")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 uri:https://example.com/key", .unsupportedKeyMethod("uri")),
        ("a=crypto:x AES_CM_128_HMAC_SHA1_80 inline:\(base64)", .invalidTag("x")),
        ("a=crypto:1234567890 AES_CM_128_HMAC_SHA1_80 inline:\(base64)", .invalidTag("1234567890")),
        ("a=crypto:1", .missingField("crypto-suite")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80", .missingField("key-params")),
        ("a=crypto:", .missingField("tag")),
        ("a=rtpmap:0 PCMU/8000", .notCryptoAttribute("rtpmap")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|2^x", .invalidLifetime("2^x")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|1:4|2^31", .invalidLifetime("2^31")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|1:0", .invalidMKI("1:0")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|256:1", .invalidMKI("256:1")),
        ("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(base64)|2^20|1:4;inline:\(base64)|2^20|2:4", .multipleKeys),
    ] as [(String, SDESError)])
    func rejectsBadAttributesWithTypedErrors(line: String, error: SDESError) {
        #expect(throws: error) { _ = try SDESCryptoAttribute(parsing: line) }
    }

    @Test func programmaticValidation() throws {
        let keys = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        #expect(throws: SDESError.invalidTag("1000000000")) { _ = try SDESCryptoAttribute(tag: 1_000_000_000, keyingMaterial: keys) }
        #expect(throws: SDESError.invalidMKI("1:0")) { _ = try SDESMasterKeyIdentifier(value: 1, length: 0) }
        #expect(try SDESMasterKeyIdentifier(value: .max, length: 128).bytes.count == 128)
    }
}
