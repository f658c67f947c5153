// SPDX-License-Identifier: Apache-2.0
import Transport

/// Where one call's datagrams go in a `VoiceEngine`: its sockets — RTP, and RTCP on its own
/// port unless the call multiplexes it with RTP (RFC 5761 rtcp-mux) — or an ICE agent (RFC
/// 8445) that found the path to the peer. Set each socket's remote to the address the peer's
/// SDP gave; the engine may move it to where authenticated packets come from (symmetric RTP,
/// `SymmetricRTPPolicy`). An ICE agent sends on the pair it selected.
public struct CallTransport: Sendable {
    /// The RTP socket (and RTCP's, with rtcp-mux); nil when `ice` carries the call.
    public var rtp: UDPSocket?
    /// The RTCP socket, or nil with rtcp-mux (and with ICE).
    public var rtcp: UDPSocket?
    /// The ICE agent that carries the call (RTP and RTCP multiplexed), or nil for sockets.
    /// Once the call is in an engine, the engine takes the agent's datagrams and posts its
    /// state changes (`VoiceEngineEvent.iceStateChanged`); its events (candidates to trickle)
    /// stay the application's, and so does closing it.
    public var ice: ICEAgent?
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

    /// A call carried by `ice` (RTP and RTCP on its one component); `dtls` when a DTLS
    /// handshake over it keys the call (it starts once ICE has connected).
    public init(ice: ICEAgent, dtls: DTLSKeying? = nil) {
        self.ice = ice
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
