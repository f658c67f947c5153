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
}
