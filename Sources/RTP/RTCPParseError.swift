// SPDX-License-Identifier: Apache-2.0
/// Why an RTCP compound packet was rejected (RFC 3550 §6 layout and the A.2 validity
/// checks). `offset` is the byte offset of the offending packet's header in the datagram.
public enum RTCPParseError: Error, Sendable, Hashable {
    /// The datagram is empty, or fewer than 4 bytes remain for a packet header.
    case truncated(offset: Int)
    /// A packet's version field is not 2.
    case badVersion(UInt8, offset: Int)
    /// The first packet is neither SR nor RR (A.2; skipped for reduced-size RTCP).
    case firstPacketNotReport(RTCPPacketType)
    /// A packet's length field runs past the end of the datagram.
    case lengthPastEnd(offset: Int, length: Int, available: Int)
    /// A packet other than the last has its padding bit set (A.2).
    case paddingNotOnLastPacket(offset: Int)
    /// The padding count is zero or larger than the packet's body.
    case invalidPadding(offset: Int, paddingCount: Int)
    /// An SR or RR announces more report blocks than its length holds (or is shorter than
    /// its fixed part).
    case reportBlocksPastEnd(RTCPPacketType, offset: Int)
    /// An SDES chunk or item runs past the packet, or a chunk lacks its terminating null item.
    case malformedSourceDescription(offset: Int)
    /// A BYE's source list or reason runs past the packet.
    case malformedBye(offset: Int)
    /// An XR packet is shorter than its reporter's SSRC.
    case malformedExtendedReport(offset: Int)
    /// An XR report block's header, or the length it gives, runs past the end of its packet;
    /// `blockOffset` is the block's byte offset in the datagram.
    case reportBlockPastEnd(offset: Int, blockOffset: Int)
    /// An XR report block of a type decoded here is not that type's length (a VoIP Metrics
    /// block is 36 bytes); `length` is the block's bytes, header included.
    case invalidReportBlockLength(blockType: UInt8, length: Int, blockOffset: Int)
}
