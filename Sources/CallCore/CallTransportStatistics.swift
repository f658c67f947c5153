// SPDX-License-Identifier: Apache-2.0
/// Counters of a call's network side: every datagram received is counted here once, and
/// the ones that never became an RTP packet for the audio side are counted under one reason.
public struct CallTransportStatistics: Sendable, Equatable, BitwiseCopyable {
    /// Datagrams handed to `CallMedia.receiveDatagram`.
    public var datagramsReceived = 0
    /// Bytes of those datagrams.
    public var bytesReceived = 0
    /// Datagrams larger than `MediaConfiguration.maximumDatagramBytes`: dropped.
    public var datagramsTooLarge = 0
    /// Datagrams handed in with an arrival time that is not finite or beyond ±10^12 ms (a
    /// broken clock): dropped.
    public var invalidArrivalTimes = 0
    /// Datagrams of a protocol that shares the port (STUN, DTLS, ZRTP, TURN channels: RFC
    /// 7983's first-byte ranges), handed back to the caller for its ICE agent or DTLS
    /// association, never parsed as RTP.
    public var multiplexedDatagrams = 0
    /// Datagrams whose first byte is in no RFC 7983 range (neither RTP/RTCP nor any protocol
    /// that may share the port): dropped unread.
    public var unknownProtocolDatagrams = 0
    /// RTCP datagrams received (RFC 5761 demultiplexing on the payload-type byte).
    public var rtcpDatagramsReceived = 0
    /// RTCP compound packets that did not parse (after SRTCP): dropped.
    public var rtcpMalformed = 0
    /// RTCP compound packets from another sender than the current one while it is still
    /// talking (a parallel stream's reports, `InboundRTPStatistics.packetsFromCompetingSource`):
    /// dropped, so they neither feed our reports nor move a symmetric-RTP latch.
    public var rtcpFromCompetingSource = 0
    /// RTCP compound packets sent (reports and BYE).
    public var rtcpPacketsSent = 0
    /// Bytes of those packets (SRTCP trailer included).
    public var rtcpBytesSent = 0
    /// Datagrams sent.
    public var datagramsSent = 0
    /// Bytes of those datagrams (SRTP tag included).
    public var bytesSent = 0
    /// Ours: datagrams that could not be protected and were not sent.
    public var sendFailures = 0
    /// SRTP protect/unprotect counters: authentication failures, replays, malformed.
    public var srtp = SRTPTransportStatistics()

    /// All counters zero.
    public init() {}
}
