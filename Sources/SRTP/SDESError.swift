/// Why an SDP `a=crypto` attribute (RFC 4568) could not be parsed or built.
public enum SDESError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The line is an SDP attribute other than `crypto` (the attribute name is given).
    case notCryptoAttribute(String)
    /// A required field is absent: "tag", "crypto-suite" or "key-params".
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
    /// The key-salt is not valid base64.
    case invalidBase64(String)
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
        case .invalidBase64(let text): return "a=crypto: key-salt is not base64 (\(text.count) characters)"
        case .wrongKeyLength(let expected, let actual): return "a=crypto: key-salt is \(actual) bytes, suite needs \(expected)"
        case .invalidLifetime(let text): return "a=crypto: invalid lifetime '\(text)'"
        case .invalidMKI(let text): return "a=crypto: invalid MKI '\(text)'"
        }
    }
}
