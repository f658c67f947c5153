// SPDX-License-Identifier: Apache-2.0
/// An SDP Security Descriptions `a=crypto` attribute (RFC 4568) with an `inline:` key:
/// `a=crypto:<tag> <crypto-suite> inline:<base64 key||salt>[|lifetime][|MKI:length] [session-params]`.
///
/// Unknown crypto-suites are rejected with `SDESError.unsupportedSuite(name)` rather than kept,
/// so `profile` is always usable; an offer parser skips such lines and answers with a suite
/// it knows. Lifetimes (`|2^31` or decimal) and MKIs (`|1:4`) are parsed, reproduced, and
/// applied: `keyingMaterial` carries them, so an `SRTPSession` built from it writes or expects
/// the MKI in every packet and stops at the lifetime. Session parameters (e.g.
/// `UNENCRYPTED_SRTCP`, `KDR=…`) are not interpreted but are kept verbatim and formatted back.
///
/// `attributeValue` and `attributeLine` contain the key: send them, never log them.
/// `description` (what string interpolation, `print` and `dump` show) and every `SDESError`
/// leave the key out.
public struct SDESCryptoAttribute: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The tag that pairs an answer with the offer line it accepts (0...999,999,999).
    public let tag: Int
    /// The master key and salt, the crypto suite they belong to, and the MKI and lifetime of
    /// this attribute (as `SRTPKeyingMaterial.masterKeyIdentifier` and `lifetimePackets`).
    public let keyingMaterial: SRTPKeyingMaterial
    /// The key's lifetime, if given.
    public let lifetime: SDESKeyLifetime?
    /// The master key identifier, if given.
    public let masterKeyIdentifier: SDESMasterKeyIdentifier?
    /// Session parameters after the key, verbatim (not interpreted).
    public let sessionParameters: [String]

    /// The crypto suite.
    public var profile: SRTPProfile { keyingMaterial.profile }

    /// Creates an attribute to send.
    ///
    /// The line and the keys agree: a `lifetime` or `masterKeyIdentifier` given here replaces
    /// the keying material's own (`self.keyingMaterial` carries it: protect with that); one
    /// left nil is taken from the keying material (a power-of-two lifetime written `2^N`).
    ///
    /// - Throws: `SDESError.invalidTag` unless `tag` is 0...999,999,999; `.invalidMKI` when
    ///   the keying material's MKI has no SDES form (a value beyond 64 bits).
    public init(
        tag: Int, keyingMaterial: SRTPKeyingMaterial, lifetime: SDESKeyLifetime? = nil,
        masterKeyIdentifier: SDESMasterKeyIdentifier? = nil, sessionParameters: [String] = []
    ) throws(SDESError) {
        guard (0...999_999_999).contains(tag) else { throw .invalidTag(String(tag)) }
        let lifetime = lifetime ?? keyingMaterial.lifetimePackets.map(SDESKeyLifetime.init(packetCount:))
        var masterKeyIdentifier = masterKeyIdentifier
        if masterKeyIdentifier == nil, let bytes = keyingMaterial.masterKeyIdentifier {
            masterKeyIdentifier = try SDESMasterKeyIdentifier(bytes: bytes)
        }
        self.tag = tag
        do {
            self.keyingMaterial = try keyingMaterial.with(masterKeyIdentifier: masterKeyIdentifier?.bytes,
                                                          lifetimePackets: lifetime?.packetCount)
        } catch {
            // Both were validated as SDES values, which SRTPKeyingMaterial accepts.
            throw .invalidLifetime(lifetime.map { "\($0)" } ?? "")
        }
        self.lifetime = lifetime
        self.masterKeyIdentifier = masterKeyIdentifier
        self.sessionParameters = sessionParameters
    }

    /// Parses an attribute in any of the forms `a=crypto:<value>`, `crypto:<value>` or the bare
    /// `<value>`; surrounding whitespace (including a trailing CR) is ignored.
    ///
    /// Whitespace is trimmed and fields are split on Unicode scalars, not characters: a space
    /// or tab followed by a combining mark is one character, so a split by characters read
    /// `a\t\u{FBA}b` as two session parameters and the line written back (`a \u{FBA}b`) as
    /// one (found by the `sdes` fuzz target).
    ///
    /// - Throws: an `SDESError` naming the first field that is wrong.
    public init(parsing line: String) throws(SDESError) {
        var scalars = Substring(line).unicodeScalars[...]
        while let first = scalars.first, first.properties.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars = scalars.dropLast() }
        var text = Substring(scalars)
        if text.hasPrefix("a=") { text = text.dropFirst(2) }
        if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isLetter || $0 == "-" }) {
            // An attribute name precedes the value (the value itself starts with a digit).
            let name = text[..<colon]
            guard name == "crypto" else { throw .notCryptoAttribute(String(name)) }
            text = text[text.index(after: colon)...]
        }

        // Errors quote a field only when it cannot be key material (`SDESError.quoted`): a
        // line with a field missing or misplaced may carry the key anywhere.
        let fields = text.unicodeScalars.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(Substring.init)
        guard fields.count >= 1 else { throw .missingField("tag") }
        guard fields[0].count <= 9, fields[0].allSatisfy(\.isASCIIDigit), let tag = Int(fields[0]) else {
            throw .invalidTag(SDESError.quoted(fields[0], allowing: \.isASCIIDigit))
        }
        guard fields.count >= 2 else { throw .missingField("crypto-suite") }
        guard let profile = SRTPProfile(sdesName: String(fields[1])) else {
            throw .unsupportedSuite(SDESError.quoted(fields[1]) { $0.isASCIIUppercaseLetter || $0.isASCIIDigit || $0 == "_" })
        }
        guard fields.count >= 3 else { throw .missingField("key-params") }

        let keyParams = fields[2]
        guard !keyParams.contains(";") else { throw .multipleKeys }
        guard let methodEnd = keyParams.firstIndex(of: ":") else { throw .missingField("key-method") }
        let method = keyParams[..<methodEnd]
        guard method.lowercased() == "inline" else {
            throw .unsupportedKeyMethod(SDESError.quoted(method) { $0.isASCIIUppercaseLetter || $0.isASCIILowercaseLetter })
        }

        let keyInfo = keyParams[keyParams.index(after: methodEnd)...].split(separator: "|", omittingEmptySubsequences: false)
        guard var keySalt = SDESBase64.decode(keyInfo[0]) else { throw .invalidBase64(characterCount: keyInfo[0].count) }
        defer { SecretBytes.wipe(&keySalt) }
        guard keySalt.count == profile.keyingMaterialLength else {
            throw .wrongKeyLength(expected: profile.keyingMaterialLength, actual: keySalt.count)
        }
        var lifetime: SDESKeyLifetime? = nil
        var mki: SDESMasterKeyIdentifier? = nil
        // Grammar: key-salt ["|" lifetime] ["|" mki]; an MKI is the part with a colon.
        for part in keyInfo.dropFirst() {
            if part.contains(":") {
                guard mki == nil else { throw .invalidMKI(SDESError.quoted(part) { $0.isASCIIDigit || $0 == ":" }) }
                mki = try SDESMasterKeyIdentifier(parsing: part)
            } else {
                guard lifetime == nil, mki == nil, let parsed = SDESKeyLifetime(part) else {
                    throw .invalidLifetime(SDESError.quoted(part) { $0.isASCIIDigit || $0 == "^" })
                }
                lifetime = parsed
            }
        }
        let keyingMaterial: SRTPKeyingMaterial
        do {
            keyingMaterial = try SRTPKeyingMaterial(profile: profile, keyAndSalt: keySalt, masterKeyIdentifier: mki?.bytes,
                                                    lifetimePackets: lifetime?.packetCount)
        } catch {
            // Lengths, MKI and lifetime were all checked above; nothing else can fail.
            throw .wrongKeyLength(expected: profile.keyingMaterialLength, actual: keySalt.count)
        }

        self.tag = tag
        self.keyingMaterial = keyingMaterial
        self.lifetime = lifetime
        self.masterKeyIdentifier = mki
        self.sessionParameters = fields.dropFirst(3).map(String.init)
    }

    /// The attribute value, e.g. `1 AES_CM_128_HMAC_SHA1_80 inline:BASE64|2^31|1:4`. It
    /// contains the key: a `String` cannot be wiped, so build it only to send it.
    public var attributeValue: String {
        value(key: keyingMaterial.withUnsafeKeyAndSalt { SDESBase64.encode($0) })
    }

    /// The full SDP line without line ending: `a=crypto:` followed by `attributeValue` (contains
    /// the key).
    public var attributeLine: String { "a=crypto:" + attributeValue }

    /// The attribute value with the key replaced by `<key>`, e.g.
    /// `1 AES_CM_128_HMAC_SHA1_80 inline:<key>|2^31|1:4`: safe to log.
    public var description: String { value(key: "<key>") }

    /// Same as `description`: the key left out.
    public var debugDescription: String { description }

    private func value(key: String) -> String {
        var keyInfo = "inline:" + key
        if let lifetime { keyInfo += "|\(lifetime)" }
        if let masterKeyIdentifier { keyInfo += "|\(masterKeyIdentifier)" }
        return ([String(tag), profile.sdesName, keyInfo] + sessionParameters).joined(separator: " ")
    }
}
