// SPDX-License-Identifier: Apache-2.0
/// The ICE attributes of a description, at session or media level (RFC 8839 §5, RFC 8840):
/// kept as data for the ICE layer, which is not this module. `SessionDescription.audioICE`
/// says which apply to the audio (the media level's, else the session's).
///
/// `password` is the secret of the connectivity checks: `description`, `debugDescription` and
/// `dump` leave it out.
public struct ICEAttributes: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `a=ice-ufrag`: the username fragment (ice-chars, at most 256).
    public var usernameFragment: String?
    /// `a=ice-pwd`: the password (ice-chars, at most 256). Not printed by `description`.
    public var password: String?
    /// `a=ice-options` tokens as written (`trickle`, `ice2`, …).
    public var options: [String]
    /// The `a=candidate` lines, in order. Media level only (RFC 8839 §5.1): a session's are
    /// neither read nor written.
    public var candidates: [ICECandidate]
    /// Whether `a=end-of-candidates` is present (RFC 8840): the sender has no more
    /// candidates to trickle.
    public var endOfCandidates: Bool

    /// The most `a=candidate` lines a media section may carry here: a host with several
    /// interfaces, each with host, reflexive and relayed candidates over UDP and TCP, stays well
    /// below it; it bounds what one description can make us keep.
    public static let maximumCandidateCount = 64
    /// The most `a=ice-options` tokens kept (RFC 8839 registers a handful).
    public static let maximumOptionCount = 16
    /// The longest username fragment or password (RFC 8839: 4…256 and 22…256 ice-chars).
    public static let maximumCredentialLength = 256

    /// Attributes from their parts; by default none.
    public init(usernameFragment: String? = nil, password: String? = nil, options: [String] = [], candidates: [ICECandidate] = [],
                endOfCandidates: Bool = false) {
        self.usernameFragment = usernameFragment
        self.password = password
        self.options = options
        self.candidates = candidates
        self.endOfCandidates = endOfCandidates
    }

    /// Whether there is no ICE attribute at all.
    public var isEmpty: Bool {
        usernameFragment == nil && password == nil && options.isEmpty && candidates.isEmpty && !endOfCandidates
    }

    /// Whether the sender trickles candidates (`a=ice-options:trickle`, RFC 8840).
    public var trickle: Bool { options.contains("trickle") }

    /// The attribute lines, without line ends; candidates only at media level.
    func lines(mediaLevel: Bool) -> [String] {
        var lines: [String] = []
        if let usernameFragment { lines.append("a=ice-ufrag:\(usernameFragment)") }
        if let password { lines.append("a=ice-pwd:\(password)") }
        if !options.isEmpty { lines.append("a=ice-options:" + options.joined(separator: " ")) }
        if mediaLevel { lines += candidates.map { "a=candidate:\($0.attributeValue)" } }
        if endOfCandidates { lines.append("a=end-of-candidates") }
        return lines
    }

    /// The username fragment, options and candidates; the password only as present or not.
    public var description: String {
        "ufrag \(usernameFragment ?? "none"), " + (password == nil ? "no password" : "password set")
            + (options.isEmpty ? "" : ", options [\(options.joined(separator: ", "))]")
            + ", \(candidates.count) candidate(s)" + (endOfCandidates ? ", end-of-candidates" : "")
    }

    /// As `description`.
    public var debugDescription: String { "ICEAttributes(\(description))" }

    /// The fields but the password, which shows only as set or not.
    public var customMirror: Mirror {
        Mirror(self, children: ["usernameFragment": usernameFragment as Any, "password": password == nil ? "nil" : "<not shown>",
                                "options": options, "candidates": candidates, "endOfCandidates": endOfCandidates], displayStyle: .struct)
    }

    /// Checks a username fragment or password: ice-chars only, `minimumLength`…256 of them.
    /// A password is never quoted, only its length.
    static func checkCredential(_ value: some StringProtocol, field: String, minimumLength: Int) throws(ICEAttributeError) {
        let count = value.unicodeScalars.count
        guard (minimumLength...maximumCredentialLength).contains(count), value.unicodeScalars.allSatisfy(isICECharacter) else {
            let shown = field == "ice-pwd" ? "<\(count) characters>" : ICEAttributeError.quoted(value)
            throw .invalidField(field, value: shown, allowed: "\(minimumLength)…\(maximumCredentialLength) of A–Z a–z 0–9 + /")
        }
    }

    /// Parses `a=ice-options`: space-separated tokens, at most `maximumOptionCount`. RFC 8839
    /// has them ice-chars; RFC 3261 tokens are taken too, as older stacks wrote `google-ice`.
    static func parseOptions(_ value: Substring) throws(ICEAttributeError) -> [String] {
        let tokens = value.split(separator: " ")
        guard tokens.count <= maximumOptionCount else { throw .tooManyOptions(limit: maximumOptionCount) }
        guard !tokens.isEmpty else { throw .missingField("ice-option-tag") }
        for token in tokens where !ICECandidate.isToken(token) {
            throw .invalidField("ice-option-tag", value: ICEAttributeError.quoted(token), allowed: "a token")
        }
        return tokens.map(String.init)
    }

    /// RFC 8839's ice-char: `ALPHA / DIGIT / "+" / "/"`.
    static func isICECharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "+", "/": return true
        default: return false
        }
    }
}
