// SPDX-License-Identifier: Apache-2.0
/// An RTCP compound packet (RFC 3550 §6.1): the packets of one datagram.
///
/// Parsing checks every length and applies the RFC 3550 A.2 validity checks — version 2
/// throughout, first packet SR or RR, padding only on the last packet, lengths adding up to
/// the datagram — and throws ``RTCPParseError`` instead of trapping on any input. Parsing
/// and writing allocate (arrays of packets and blocks); RTCP is sent every few seconds, not
/// per frame.
///
/// ```swift
/// let compound = RTCPCompoundPacket(packets: [
///     .senderReport(report),
///     .sourceDescription(RTCPSourceDescription(chunks: [.init(source: ssrc, items: [.init(type: .canonicalName, text: cname)])])),
/// ])
/// let datagram = try compound.serialized()
/// ```
public struct RTCPCompoundPacket: Sendable, Hashable {
    /// The packets in datagram order.
    public var packets: [RTCPPacket]

    /// A compound packet of the given packets.
    public init(packets: [RTCPPacket]) { self.packets = packets }

    /// Parses a datagram.
    /// - Parameters:
    ///   - bytes: the whole RTCP datagram.
    ///   - allowReducedSize: accept a first packet that is not SR or RR (RFC 5506
    ///     reduced-size RTCP); all other checks still apply.
    /// - Throws: ``RTCPParseError`` for the first problem found.
    public init(parsing bytes: UnsafeRawBufferPointer, allowReducedSize: Bool = false) throws(RTCPParseError) {
        guard !bytes.isEmpty else { throw .truncated(offset: 0) }
        var packets: [RTCPPacket] = []
        var offset = 0
        while offset < bytes.count {
            guard offset + 4 <= bytes.count else { throw .truncated(offset: offset) }
            let first = bytes[offset]
            let version = first >> 6
            guard version == 2 else { throw .badVersion(version, offset: offset) }
            let type = RTCPPacketType(rawValue: bytes[offset + 1])
            if offset == 0 && !allowReducedSize && type != .senderReport && type != .receiverReport {
                throw .firstPacketNotReport(type)
            }
            let length = (Int(bytes.bigEndianUInt16(at: offset + 2)) + 1) * 4
            let end = offset + length
            guard end <= bytes.count else {
                throw .lengthPastEnd(offset: offset, length: length, available: bytes.count - offset)
            }
            var paddingCount = 0
            if first & 0x20 != 0 {
                guard end == bytes.count else { throw .paddingNotOnLastPacket(offset: offset) }
                paddingCount = Int(bytes[end - 1])
                guard paddingCount > 0 && paddingCount <= length - 4 else {
                    throw .invalidPadding(offset: offset, paddingCount: paddingCount)
                }
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(end - paddingCount)])
            packets.append(try RTCPPacket(type: type, count: Int(first & 0x1F), body: body, offset: offset))
            offset = end
        }
        self.packets = packets
    }

    /// Parses a datagram held in an array (see the buffer overload).
    public init(parsing bytes: [UInt8], allowReducedSize: Bool = false) throws(RTCPParseError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(RTCPParseError) in
                try RTCPCompoundPacket(parsing: buffer, allowReducedSize: allowReducedSize)
            }
        }
        self = try result.get()
    }

    /// Bytes the compound packet occupies when written.
    public var encodedLength: Int { packets.reduce(0) { $0 + $1.encodedLength } }

    /// Writes the packets at the start of `buffer` (no padding is added).
    /// - Returns: the number of bytes written, ``encodedLength``.
    /// - Throws: ``RTCPBuildError``; nothing is written then.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTCPBuildError) -> Int {
        for packet in packets { try packet.validate() }
        let length = encodedLength
        guard length <= buffer.count else { throw .bufferTooSmall(required: length, available: buffer.count) }
        var offset = 0
        for packet in packets {
            packet.write(into: buffer, at: offset)
            offset += packet.encodedLength
        }
        return offset
    }

    /// The compound packet as a new byte array.
    /// - Throws: ``RTCPBuildError`` if a packet cannot be written.
    public func serialized() throws(RTCPBuildError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: encodedLength)
        let result = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(RTCPBuildError) in try write(into: buffer) }
        }
        _ = try result.get()
        return bytes
    }
}
