// SPDX-License-Identifier: Apache-2.0
import SRTP

/// Why an SDP body could not be read or answered.
///
/// Errors about a line give its number (1-based) and kind (`c=`, `m=`, `a=rtpmap`, …). No
/// case carries key material: an `a=crypto` line is never quoted, only the `SDESError` that
/// says which field is wrong (which itself never holds the key).
public enum SessionDescriptionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A line is not what its kind takes: the line number, its kind and what is wrong.
    case malformed(line: Int, kind: String, reason: String)
    /// An `a=crypto` line that names a suite we know is malformed (line number and why).
    case crypto(line: Int, SDESError)
    /// There is no `m=audio` section.
    case noAudio
    /// Neither the session nor the audio section has a `c=` line.
    case noConnection
    /// The audio section lists no codec we have in common (by `a=rtpmap` or static payload
    /// type): what it offered, and what we accept.
    case noCommonCodec(offered: [String], accepted: [String])
    /// The audio section is not `RTP/SAVP`, `RTP/SAVPF`, `UDP/TLS/RTP/SAVP` or
    /// `UDP/TLS/RTP/SAVPF`: this module sends only SRTP.
    case notSecure(profile: String)
    /// No `a=crypto` line names a suite we accept: the suites that were offered (or answered),
    /// and those this side accepts (`LocalAudio.suites`, or the suites of our offer).
    case noCommonSuite(offered: [String], accepted: [String])
    /// The audio section is rejected or disabled (`m=audio 0`, RFC 3264 §6, §8.2): its line.
    /// `line` is nil for a description built in code rather than parsed.
    case audioRejected(line: Int?)
    /// An `a=crypto` line asks for SRTP without encryption or authentication
    /// (`UNENCRYPTED_SRTP`, `UNENCRYPTED_SRTCP`, `UNAUTHENTICATED_SRTP`, RFC 4568 §6.3): its
    /// line and the parameter. We never send or accept unprotected media.
    case unprotectedCrypto(line: Int, parameter: String)
    /// An ICE attribute (`a=candidate`, `a=ice-ufrag`, `a=ice-pwd`, `a=ice-options`) is not what
    /// RFC 8839 allows: its line, its kind and what is wrong (an `ice-pwd` is never quoted).
    case ice(line: Int, kind: String, ICEAttributeError)
    /// Offer and answer have no way of keying SRTP in common: the methods offered (or
    /// answered), `DTLS-SRTP` for `a=fingerprint` and `SDES` for `a=crypto`, and those this side
    /// accepts (`LocalAudio.keyExchange`, or what our offer carried).
    case noCommonKeyExchange(offered: [String], accepted: [String])
    /// DTLS-SRTP was offered (or answered) only with fingerprints of hash functions we cannot
    /// check (their names): no certificate of the peer's could be verified.
    case noSupportedFingerprint(hashFunctions: [String])
    /// An `a=setup` that leaves no DTLS role to take: `holdconn` in an offer, `actpass` or
    /// `holdconn` in an answer (RFC 4145 §4, RFC 5763 §5).
    case unacceptableSetup(DTLSSetup)
    /// The answer's `a=setup` is not one the offer's allows (both `active`, or both `passive`):
    /// both setups as written, nil where absent (`active` in an offer, `passive` in an answer).
    case conflictingSetup(offered: DTLSSetup?, answered: DTLSSetup?)
    /// DTLS-SRTP without `a=rtcp-mux` in the offer (or the answer): DTLS, SRTP and SRTCP share
    /// one port here (RFC 7983's demultiplexing, as RFC 8829 has WebRTC do), so we require it.
    case rtcpMuxRequired

    /// One line naming what failed and, when it is about a line, which.
    public var description: String {
        switch self {
        case let .malformed(line, kind, reason): return "SDP line \(line) (\(kind)): \(reason)"
        case let .crypto(line, error): return "SDP line \(line) (a=crypto): \(error)"
        case .noAudio: return "SDP has no m=audio section"
        case .noConnection: return "SDP has no c= line (neither session nor audio level)"
        case let .noCommonCodec(offered, accepted):
            return "SDP audio section offers no codec in common: offered [\(offered.joined(separator: ", "))], accepted [\(accepted.joined(separator: ", "))]"
        case let .notSecure(profile): return "SDP audio section uses \(profile), not SRTP (RTP/SAVP, RTP/SAVPF, UDP/TLS/RTP/SAVP(F))"
        case let .noCommonSuite(offered, accepted):
            let list = offered.isEmpty ? "none" : offered.joined(separator: ", ")
            return "SDP offers no crypto suite we accept (offered: \(list); we accept "
                + (accepted.isEmpty ? "none" : accepted.joined(separator: ", ")) + ")"
        case let .audioRejected(line):
            return (line.map { "SDP line \($0) (m=): " } ?? "SDP: ") + "port 0: the audio stream is rejected or disabled"
        case let .unprotectedCrypto(line, parameter):
            return "SDP line \(line) (a=crypto): \(parameter) asks for unprotected media, which we refuse"
        case let .ice(line, kind, error): return "SDP line \(line) (\(kind)): \(error)"
        case let .noCommonKeyExchange(offered, accepted):
            return "SDP offers no way of keying SRTP we accept (offered: "
                + (offered.isEmpty ? "neither a=crypto nor a=fingerprint" : offered.joined(separator: ", "))
                + "; we accept \(accepted.joined(separator: ", ")))"
        case let .noSupportedFingerprint(hashFunctions):
            return "SDP offers DTLS-SRTP only with fingerprints we cannot check (\(hashFunctions.joined(separator: ", ")); we check "
                + CertificateFingerprint.HashFunction.allCases.map(\.rawValue).joined(separator: ", ") + ")"
        case let .unacceptableSetup(setup): return "SDP a=setup:\(setup.rawValue) leaves no DTLS role to take"
        case let .conflictingSetup(offered, answered):
            return "SDP answer's a=setup:\(answered?.rawValue ?? "(absent: passive)") does not fit the offer's "
                + "a=setup:\(offered?.rawValue ?? "(absent: active)")"
        case .rtcpMuxRequired: return "SDP asks for DTLS-SRTP without a=rtcp-mux, which we require (DTLS, SRTP and SRTCP on one port)"
        }
    }
}
