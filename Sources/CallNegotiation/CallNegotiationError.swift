// SPDX-License-Identifier: Apache-2.0
import CallCore
import SessionDescription
import Transport

/// Why a negotiated SDP exchange could not become a call's media.
public enum CallNegotiationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The description was refused (malformed, no audio, no common suite, …).
    case description(SessionDescriptionError)
    /// The peer's Opus `a=fmtp` cannot be parsed.
    case peerFormatParameters(OpusFormatParametersError)
    /// What the peer asked for (its `a=fmtp`, `a=ptime`) or the base configuration makes no
    /// valid configuration.
    case configuration(MediaConfigurationError)
    /// The call's media could not be made from it (SRTP refused the keys, the codec failed).
    case media(CallMediaError)
    /// A re-negotiation changed what a running call cannot take in place (`what`: rtcp-mux, the
    /// SRTP suite, or a packet time the peer's limits exclude): make new media for it.
    case needsNewMedia(String)
    /// The peer's description carries no ICE credentials (`a=ice-ufrag`/`a=ice-pwd`): it was
    /// made without ICE, and an ICE agent cannot check a path to it.
    case noRemoteICE
    /// The ICE agent refused the peer's credentials or one of its candidates.
    case ice(ICEError)

    public var description: String {
        switch self {
        case let .description(error): return "the session description: \(error)"
        case let .peerFormatParameters(error): return "the peer's opus a=fmtp: \(error)"
        case let .configuration(error): return "the negotiated configuration: \(error)"
        case let .media(error): return "the call's media: \(error)"
        case let .needsNewMedia(what): return "the running call cannot take a new \(what) in place: it needs new media"
        case .noRemoteICE: return "the peer's description carries no a=ice-ufrag/a=ice-pwd: it was made without ICE"
        case let .ice(error): return "the peer's ICE: \(error)"
        }
    }
}
