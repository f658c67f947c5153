// SPDX-License-Identifier: Apache-2.0
/// What shares a call's port with RTP and RTCP, told apart by a datagram's first byte
/// (RFC 7983 §7, as updated by RFC 9443): a call takes RTP and RTCP itself and hands the others
/// back to whoever runs them (ICE for STUN, DTLS-SRTP for DTLS).
public enum MultiplexedProtocol: Sendable, Hashable {
    /// STUN (first byte 0…3): ICE connectivity checks and consent.
    case stun
    /// ZRTP (16…19).
    case zrtp
    /// DTLS (20…63): the DTLS-SRTP handshake and its alerts.
    case dtls
    /// TURN channel data (64…79).
    case turnChannel
    /// RTP or RTCP (128…191).
    case rtp
    /// Anything else: no protocol RFC 7983 assigns; dropped.
    case unknown

    /// The protocol of a datagram whose first byte is `firstByte`.
    public init(firstByte: UInt8) {
        switch firstByte {
        case 0...3: self = .stun
        case 16...19: self = .zrtp
        case 20...63: self = .dtls
        case 64...79: self = .turnChannel
        case 128...191: self = .rtp
        default: self = .unknown
        }
    }
}
