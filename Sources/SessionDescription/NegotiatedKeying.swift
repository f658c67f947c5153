// SPDX-License-Identifier: Apache-2.0
import SRTP

/// How a negotiated call keys SRTP.
///
/// Holds keys (`.sdes`): `description` leaves them out.
public enum NegotiatedKeying: Sendable, Equatable, CustomStringConvertible {
    /// SDES: both keys came in the SDP. `sending` is ours (we protect what we send with it),
    /// `receiving` the peer's; both of the suite the answer chose.
    case sdes(sending: SRTPKeyingMaterial, receiving: SRTPKeyingMaterial)
    /// DTLS-SRTP: the keys come from a handshake still to run, as `NegotiatedDTLS` says.
    case dtls(NegotiatedDTLS)

    /// The SDES suite's name, or the DTLS role and the peer's fingerprints; never a key.
    public var description: String {
        switch self {
        case let .sdes(sending, _): return sending.profile.sdesName
        case let .dtls(dtls): return "\(dtls)"
        }
    }
}
