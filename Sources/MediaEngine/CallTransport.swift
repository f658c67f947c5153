// SPDX-License-Identifier: Apache-2.0
import Transport

/// The sockets of one call in a `VoiceEngine`: RTP, and RTCP on its own port unless the call
/// multiplexes it with RTP (RFC 5761 rtcp-mux). Set each socket's remote to the address the
/// peer's SDP gave; the engine may move it to where authenticated packets come from
/// (symmetric RTP, `SymmetricRTPPolicy`).
public struct CallTransport: Sendable {
    /// The RTP socket (and RTCP's, with rtcp-mux).
    public var rtp: UDPSocket
    /// The RTCP socket, or nil with rtcp-mux.
    public var rtcp: UDPSocket?
    /// The DTLS handshake that keys the call's SRTP on the RTP socket (DTLS-SRTP), or nil when
    /// the keys came with the call (SDES) or there are none.
    public var dtls: DTLSKeying?

    /// A call's sockets: `rtp`, and `rtcp` unless RTCP is multiplexed; `dtls` when a DTLS
    /// handshake on `rtp` keys the call (then RTCP must be multiplexed, and the call made
    /// with `MediaProtection.srtpKeyedByHandshake`).
    public init(rtp: UDPSocket, rtcp: UDPSocket? = nil, dtls: DTLSKeying? = nil) {
        self.rtp = rtp
        self.rtcp = rtcp
        self.dtls = dtls
    }
}

/// Whether the engine moves a call's remote address to where the peer's packets come from
/// (symmetric RTP, RFC 4961; the "latching" NAT traversal of SIP softphones and SBCs).
public enum SymmetricRTPPolicy: Sendable, Hashable {
    /// Never: packets always go to the address the application set.
    case off
    /// Only to the source of a packet that passed SRTP or SRTCP authentication — so nobody
    /// without the keys can redirect the media; a call without SRTP never latches.
    case authenticated
}
