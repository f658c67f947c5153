// SPDX-License-Identifier: Apache-2.0
/// This side's ICE credentials and candidates, written into an offer or answer made from
/// `LocalAudio` (RFC 8839): `a=ice-ufrag`, `a=ice-pwd`, `a=ice-options:trickle`, an
/// `a=candidate` line each, `a=end-of-candidates`. The ICE layer (not this module) gathers
/// them and runs the checks.
///
/// `password` is the secret of the connectivity checks: `description`, `debugDescription` and
/// `dump` leave it out.
public struct LocalICE: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The username fragment (4…256 ice-chars: letters, digits, `+`, `/`).
    public let usernameFragment: String
    /// The password (22…256 ice-chars).
    public let password: String
    /// The candidates gathered so far, in order of writing (at most
    /// `ICEAttributes.maximumCandidateCount`: a peer using this module reads no more).
    public var candidates: [ICECandidate]
    /// Whether we trickle candidates (RFC 8840: `a=ice-options:trickle`), so the peer may start
    /// its checks before all are known.
    public var trickle: Bool
    /// Whether gathering is over (`a=end-of-candidates`, RFC 8840): `candidates` are all
    /// there will be.
    public var endOfCandidates: Bool

    /// Our ICE side, its credentials checked against RFC 8839 (as we make them, unlike a
    /// peer's, whose shorter ones are kept for the ICE layer to judge).
    ///
    /// - Throws: `ICEAttributeError.invalidField` for a username fragment not of 4…256
    ///   ice-chars, or a password not of 22…256 (the password is not quoted).
    public init(usernameFragment: String, password: String, candidates: [ICECandidate] = [], trickle: Bool = false,
                endOfCandidates: Bool = false) throws(ICEAttributeError) {
        try ICEAttributes.checkCredential(usernameFragment, field: "ice-ufrag", minimumLength: 4)
        try ICEAttributes.checkCredential(password, field: "ice-pwd", minimumLength: 22)
        self.usernameFragment = usernameFragment
        self.password = password
        self.candidates = candidates
        self.trickle = trickle
        self.endOfCandidates = endOfCandidates
    }

    /// The attributes written into a media section.
    var attributes: ICEAttributes {
        ICEAttributes(usernameFragment: usernameFragment, password: password, options: trickle ? ["trickle"] : [], candidates: candidates,
                      endOfCandidates: endOfCandidates)
    }

    /// The username fragment and candidate count; never the password.
    public var description: String { "\(attributes)" }
    /// As `description`: the password stays out of `debugPrint` and reflection too.
    public var debugDescription: String { "LocalICE(\(attributes))" }
    /// The attributes as `ICEAttributes` mirrors them: no password.
    public var customMirror: Mirror { attributes.customMirror }
}
