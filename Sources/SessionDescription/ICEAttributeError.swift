// SPDX-License-Identifier: Apache-2.0
/// Why an ICE attribute (`a=candidate`, `a=ice-ufrag`, `a=ice-pwd`, `a=ice-options`, RFC 8839
/// §5) or an ICE value built in code is not what RFC 8839 allows.
///
/// A value is quoted cut to 40 characters, and an `ice-pwd` never: it is the secret of the
/// connectivity checks, so only its length is given.
public enum ICEAttributeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A field the grammar requires is absent: `foundation`, `component-id`, `transport`,
    /// `priority`, `connection-address`, `port`, `typ`, or the value after `raddr`/`rport`.
    case missingField(String)
    /// A field is out of range or has characters it may not: the field's name, the value as
    /// written (cut short; a length for a password), and what it may be.
    case invalidField(String, value: String, allowed: String)
    /// The candidate type after `typ` is none of `host`, `srflx`, `prflx`, `relay`.
    case unknownCandidateType(String)
    /// An extension attribute's name with no value after it (extensions come in pairs).
    case extensionWithoutValue(String)
    /// More extension attributes than a candidate may carry here (`ICECandidate.maximumExtensionCount`).
    case tooManyExtensions(limit: Int)
    /// More tokens in `a=ice-options` than we keep (`ICEAttributes.maximumOptionCount`).
    case tooManyOptions(limit: Int)

    /// One line naming the field and what is wrong with it.
    public var description: String {
        switch self {
        case let .missingField(field): return "ICE: missing \(field)"
        case let .invalidField(field, value, allowed): return "ICE: \(field) \(value) is not \(allowed)"
        case let .unknownCandidateType(type): return "ICE: unknown candidate type \(type.debugDescription) (host, srflx, prflx or relay)"
        case let .extensionWithoutValue(name): return "ICE: candidate extension \(name.debugDescription) has no value"
        case let .tooManyExtensions(limit): return "ICE: a candidate with more than \(limit) extension attributes"
        case let .tooManyOptions(limit): return "ICE: more than \(limit) ice-options"
        }
    }

    /// `value` quoted for an error, at most 40 characters of it.
    static func quoted(_ value: some StringProtocol) -> String {
        let text = String(value)
        return text.count > 40 ? String(text.prefix(40)).debugDescription + "…" : text.debugDescription
    }
}
