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
    /// The audio section is not `RTP/SAVP` (or `RTP/SAVPF`): this tool sends only SRTP.
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

    /// One line naming what failed and, when it is about a line, which.
    public var description: String {
        switch self {
        case let .malformed(line, kind, reason): return "SDP line \(line) (\(kind)): \(reason)"
        case let .crypto(line, error): return "SDP line \(line) (a=crypto): \(error)"
        case .noAudio: return "SDP has no m=audio section"
        case .noConnection: return "SDP has no c= line (neither session nor audio level)"
        case let .noCommonCodec(offered, accepted):
            return "SDP audio section offers no codec in common: offered [\(offered.joined(separator: ", "))], accepted [\(accepted.joined(separator: ", "))]"
        case let .notSecure(profile): return "SDP audio section uses \(profile), not RTP/SAVP (SRTP with SDES keys)"
        case let .noCommonSuite(offered, accepted):
            let list = offered.isEmpty ? "none" : offered.joined(separator: ", ")
            return "SDP offers no crypto suite we accept (offered: \(list); we accept "
                + (accepted.isEmpty ? "none" : accepted.joined(separator: ", ")) + ")"
        case let .audioRejected(line):
            return (line.map { "SDP line \($0) (m=): " } ?? "SDP: ") + "port 0: the audio stream is rejected or disabled"
        case let .unprotectedCrypto(line, parameter):
            return "SDP line \(line) (a=crypto): \(parameter) asks for unprotected media, which we refuse"
        case let .ice(line, kind, error): return "SDP line \(line) (\(kind)): \(error)"
        }
    }
}
