// SPDX-License-Identifier: Apache-2.0
import SRTP

// Parsing the attributes that set up the transport rather than the media: DTLS-SRTP's
// a=fingerprint and a=setup, ICE's, a=mid and a=group. Each is checked on its line, and what
// one description can make us keep is bounded (fingerprints, candidates, groups).

extension SessionDescription {
    /// The most `a=fingerprint` lines at one level, skipped ones included (a certificate has one
    /// per hash function; RFC 8122 registers five we check).
    static let maximumFingerprintCount = 8
    /// The most `a=group` lines, and the most tags in one.
    static let maximumGroupCount = 8
    static let maximumGroupSize = 16
    /// The longest `a=mid` (RFC 8843's MID header extension carries at most 16 bytes;
    /// longer ones are kept for sections that are not bundled).
    static let maximumMIDLength = 64

    /// An attribute line's value split at its first colon: `fingerprint`, `sha-256 AB:…`.
    static func splitAttribute(_ value: Substring) -> (name: Substring, argument: Substring) {
        guard let colon = value.firstIndex(of: ":") else { return (value, "") }
        return (value[..<colon], value[value.index(after: colon)...])
    }

    /// Parses the DTLS and ICE attributes that both the session and a media section may carry
    /// into that level's. Returns false for any other attribute.
    static func parseTransportAttribute(_ name: Substring, _ argument: Substring, line number: Int, dtls: inout DTLSAttributes,
                                        ice: inout ICEAttributes) throws(SessionDescriptionError) -> Bool {
        switch name {
        case "fingerprint":
            guard dtls.fingerprints.count + dtls.unsupportedFingerprintHashes.count < maximumFingerprintCount else {
                throw .malformed(line: number, kind: "a=fingerprint", reason: "more than \(maximumFingerprintCount) at one level")
            }
            if let fingerprint = CertificateFingerprint(sdpValue: String(argument)) {
                dtls.fingerprints.append(fingerprint)
                return true
            }
            // A function we do not check is skipped, as an a=crypto suite we do not run is: the
            // peer may list another we do. A known one with a bad digest is an error.
            let function = argument.split(separator: " ", maxSplits: 1).first ?? ""
            if CertificateFingerprint.HashFunction(rawValue: function.lowercased()) == nil, function.utf8.count <= 32, ICECandidate.isToken(function),
               argument.split(separator: " ").count == 2 {
                dtls.unsupportedFingerprintHashes.append(String(function))
                return true
            }
            throw .malformed(line: number, kind: "a=fingerprint",
                             reason: "needs <hash function> <digest as colon-separated hex pairs of its length>, got \(quoted(argument))")
        case "setup":
            guard dtls.setup == nil else { throw .malformed(line: number, kind: "a=setup", reason: "given twice at one level") }
            guard let setup = DTLSSetup(rawValue: argument.lowercased()) else {
                throw .malformed(line: number, kind: "a=setup", reason: "needs active, passive, actpass or holdconn, got \(quoted(argument))")
            }
            dtls.setup = setup
        case "ice-ufrag", "ice-pwd":
            let isPassword = name == "ice-pwd"
            guard (isPassword ? ice.password : ice.usernameFragment) == nil else {
                throw .malformed(line: number, kind: "a=\(name)", reason: "given twice at one level")
            }
            // RFC 8839 asks for at least 4 and 22 characters; shorter ones from older stacks are
            // kept for the ICE layer to judge. The characters and the upper bound are checked.
            do {
                try ICEAttributes.checkCredential(argument, field: String(name), minimumLength: 1)
            } catch {
                throw .ice(line: number, kind: "a=\(name)", error)
            }
            if isPassword { ice.password = String(argument) } else { ice.usernameFragment = String(argument) }
        case "ice-options":
            let options: [String]
            do {
                options = try ICEAttributes.parseOptions(argument)
            } catch {
                throw .ice(line: number, kind: "a=ice-options", error)
            }
            guard ice.options.count + options.count <= ICEAttributes.maximumOptionCount else {
                throw .ice(line: number, kind: "a=ice-options", .tooManyOptions(limit: ICEAttributes.maximumOptionCount))
            }
            ice.options += options
        case "end-of-candidates":
            ice.endOfCandidates = true
        default:
            return false
        }
        return true
    }

    /// Parses `a=candidate` into a media section's ICE attributes.
    static func parseCandidate(_ argument: Substring, line number: Int, into ice: inout ICEAttributes) throws(SessionDescriptionError) {
        guard ice.candidates.count < ICEAttributes.maximumCandidateCount else {
            throw .malformed(line: number, kind: "a=candidate", reason: "more than \(ICEAttributes.maximumCandidateCount) in one section")
        }
        do {
            ice.candidates.append(try ICECandidate(parsing: argument))
        } catch {
            throw .ice(line: number, kind: "a=candidate", error)
        }
    }

    /// Parses `a=mid`'s value: a token (RFC 5888 §4) of at most `maximumMIDLength` characters.
    static func parseMID(_ argument: Substring, line number: Int, current: String?) throws(SessionDescriptionError) -> String {
        guard current == nil else { throw .malformed(line: number, kind: "a=mid", reason: "given twice in one section") }
        guard argument.utf8.count <= maximumMIDLength, ICECandidate.isToken(argument) else {
            throw .malformed(line: number, kind: "a=mid", reason: "needs a token of 1…\(maximumMIDLength) characters, got \(quoted(argument))")
        }
        return String(argument)
    }

    /// Parses `a=group`'s value: semantics and the tags of the sections grouped (RFC 5888 §5;
    /// none at all is an empty BUNDLE group, RFC 8843).
    static func parseGroup(_ argument: Substring, line number: Int, count: Int) throws(SessionDescriptionError) -> MediaGroup {
        guard count < maximumGroupCount else { throw .malformed(line: number, kind: "a=group", reason: "more than \(maximumGroupCount) groups") }
        let fields = argument.split(separator: " ")
        guard fields.count <= 1 + maximumGroupSize else {
            throw .malformed(line: number, kind: "a=group", reason: "more than \(maximumGroupSize) sections in one group")
        }
        guard let semantics = fields.first, fields.allSatisfy({ ICECandidate.isToken($0) && $0.utf8.count <= maximumMIDLength }) else {
            throw .malformed(line: number, kind: "a=group", reason: "needs <semantics> *(<mid>), tokens, got \(quoted(argument))")
        }
        return MediaGroup(semantics: String(semantics), identificationTags: fields.dropFirst().map(String.init))
    }

    /// A value from the wire for an error message: quoted, cut to 40 characters.
    private static func quoted(_ value: Substring) -> String { ICEAttributeError.quoted(value) }
}
