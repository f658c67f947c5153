// SPDX-License-Identifier: Apache-2.0
import SRTP

/// An `a=setup` attribute (RFC 4145 §4, RFC 5763 §5): which end of the DTLS handshake a side
/// is willing to be. The `active` side sends the ClientHello (`DTLSRole.client`).
public enum DTLSSetup: String, Sendable, Hashable, CaseIterable {
    /// `active`: this side starts the handshake (the DTLS client).
    case active
    /// `passive`: this side waits for the peer's handshake (the DTLS server).
    case passive
    /// `actpass`: either; the answerer decides. RFC 5763 §5 has an offer say this.
    case actpass
    /// `holdconn`: no connection for now. Leaves no one to start a handshake, so neither an
    /// offer nor an answer with it can key media.
    case holdconn

    /// What an answer says to an offer that says this (RFC 5763 §5: the answerer should be
    /// `active`, so its ClientHello goes out at once): `active` to `actpass` and `passive`,
    /// `passive` to `active`; nil for `holdconn`, which leaves no role to take.
    ///
    /// An offer without `a=setup` counts as `active` (RFC 4145 §4.1, `absentInOffer`), so it
    /// is answered `passive`.
    public var answer: DTLSSetup? {
        switch self {
        case .actpass, .passive: return .active
        case .active: return .passive
        case .holdconn: return nil
        }
    }

    /// The DTLS role of the side that settled on this setup: `active` is the client, `passive`
    /// the server; nil for `actpass` and `holdconn`, which settle nothing.
    public var role: DTLSRole? {
        switch self {
        case .active: return .client
        case .passive: return .server
        case .actpass, .holdconn: return nil
        }
    }

    /// The setup an offer means when it writes none: `active` (RFC 4145 §4.1).
    public static let absentInOffer = DTLSSetup.active
    /// The setup an answer means when it writes none: `passive` (RFC 4145 §4.1). RFC 5763 §5
    /// has DTLS-SRTP answers always write one; older ones may not.
    public static let absentInAnswer = DTLSSetup.passive
}

extension DTLSRole {
    /// The other end of the handshake.
    var peer: DTLSRole { self == .client ? .server : .client }
}
