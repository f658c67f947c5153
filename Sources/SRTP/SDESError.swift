// SPDX-License-Identifier: Apache-2.0
/// Why an SDP `a=crypto` attribute (RFC 4568) could not be parsed or built.
///
/// No case carries key material: a field of the line is quoted only when it is too short to be
/// a key, or made only of the characters its kind allows (`A`–`Z`, digits and `_` for a
/// suite); else it is replaced by its length, e.g. `<47 characters>`.
public enum SDESError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line is an SDP attribute other than `crypto` (the attribute name is given).
    case notCryptoAttribute(String)
    /// A required field is absent: "tag", "crypto-suite", "key-params" or "key-method" (the
    /// `inline:` before the key).
    case missingField(String)
    /// The tag is not 1 to 9 decimal digits.
    case invalidTag(String)
    /// The crypto-suite name is not one `SRTPProfile` supports (e.g. `F8_128_HMAC_SHA1_80`).
    /// Offers often list several suites: skip lines failing this way and pick another.
    case unsupportedSuite(String)
    /// The key method is not `inline` (the only one RFC 4568 defines).
    case unsupportedKeyMethod(String)
    /// More than one `inline:` key in one attribute (RFC 4568 allows it with MKIs; not
    /// supported).
    case multipleKeys
    /// The key-salt is not valid base64 (its length in characters; the text is key material
    /// and is not kept).
    case invalidBase64(characterCount: Int)
    /// The decoded key-salt has the wrong length for the suite.
    case wrongKeyLength(expected: Int, actual: Int)
    /// The lifetime is neither `2^N` nor a decimal packet count (or is out of range).
    case invalidLifetime(String)
    /// The MKI is not `value:length` with decimal value fitting in length (1...128) bytes.
    case invalidMKI(String)

    /// A one-line explanation naming what failed and why.
    public var description: String {
        switch self {
        case .notCryptoAttribute(let name): return "not an a=crypto attribute: \(name)"
        case .missingField(let field): return "a=crypto: missing \(field)"
        case .invalidTag(let text): return "a=crypto: invalid tag '\(text)'"
        case .unsupportedSuite(let name): return "a=crypto: unsupported crypto-suite \(name)"
        case .unsupportedKeyMethod(let method): return "a=crypto: unsupported key method '\(method)'"
        case .multipleKeys: return "a=crypto: multiple keys in one attribute are not supported"
        case .invalidBase64(let count): return "a=crypto: key-salt is not base64 (\(count) characters)"
        case .wrongKeyLength(let expected, let actual): return "a=crypto: key-salt is \(actual) bytes, suite needs \(expected)"
        case .invalidLifetime(let text): return "a=crypto: invalid lifetime '\(text)'"
        case .invalidMKI(let text): return "a=crypto: invalid MKI '\(text)'"
        }
    }

    /// `text` itself when it cannot be a key — at most 16 characters (the shortest key||salt,
    /// GCM's 28 bytes, is 38 in base64), or at most 40 all `allowed` by the field's kind —
    /// else `<N characters>`. A key lands in another field only when the line is garbled
    /// (`inline:` or the suite left out); the fields after a key are reached only once the
    /// key decoded to the suite's length.
    static func quoted(_ text: Substring, allowing allowed: (Character) -> Bool) -> String {
        text.count <= 16 || (text.count <= 40 && text.allSatisfy(allowed)) ? String(text) : "<\(text.count) characters>"
    }
}
