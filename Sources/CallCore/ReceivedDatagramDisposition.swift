// SPDX-License-Identifier: Apache-2.0
/// What `CallMedia.receiveDatagram` did with a datagram.
public enum ReceivedDatagramDisposition: Sendable, Hashable {
    /// An RTP packet, queued for playout; `authenticated` when it passed SRTP.
    case media(authenticated: Bool)
    /// An RTCP compound packet, processed; `authenticated` when it passed SRTCP.
    case control(authenticated: Bool)
    /// Dropped and counted (too large, malformed, forged, replayed, foreign).
    case dropped
    /// Not RTP or RTCP: a protocol that shares the port (RFC 7983), left where it was read for
    /// the caller to hand on (DTLS to the call's DTLS association, STUN to ICE); counted in
    /// `CallTransportStatistics.multiplexedDatagrams`.
    case multiplexed(MultiplexedProtocol)

    /// Whether the datagram proved it came from the peer holding the keys: the only datagrams
    /// a symmetric-RTP engine may latch the peer's address from.
    public var isAuthenticated: Bool {
        switch self {
        case let .media(authenticated), let .control(authenticated): return authenticated
        case .dropped, .multiplexed: return false
        }
    }
}
