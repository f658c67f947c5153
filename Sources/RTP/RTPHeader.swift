// SPDX-License-Identifier: Apache-2.0
/// The header of an RTP packet to send (RFC 3550 §5.1), written into a caller's buffer.
///
/// A plain value with inline CSRC and extension storage: building, mutating and writing a
/// header performs no heap allocation, so one can be kept per stream and updated per packet.
///
/// ```swift
/// var header = RTPHeader(payloadType: 111, sequenceNumber: seq, timestamp: ts, ssrc: ssrc)
/// let written = try header.write(payload: opusPacket, into: datagram)
/// ```
public struct RTPHeader: Sendable, Hashable {
    /// The marker bit (for audio: first packet of a talkspurt).
    public var marker: Bool
    /// The 7-bit payload type (0–127).
    public var payloadType: UInt8
    /// The 16-bit sequence number.
    public var sequenceNumber: UInt16
    /// The 32-bit RTP timestamp.
    public var timestamp: UInt32
    /// The synchronisation source identifier.
    public var ssrc: UInt32
    /// The contributing sources (at most 15).
    public var csrcs: RTPCSRCList
    /// The header extension, if any.
    public var headerExtension: RTPHeaderExtension?

    /// A header with the given fields.
    public init(
        marker: Bool = false,
        payloadType: UInt8,
        sequenceNumber: UInt16,
        timestamp: UInt32,
        ssrc: UInt32,
        csrcs: RTPCSRCList = [],
        headerExtension: RTPHeaderExtension? = nil
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = csrcs
        self.headerExtension = headerExtension
    }

    /// Copies the header of a received packet (padding is a property of the packet, not the
    /// header, and is not kept).
    /// - Throws: ``RTPBuildError/extensionTooLarge(_:)`` if its extension exceeds
    ///   ``RTPHeaderExtension/capacity``.
    public init(_ packet: RTPPacketView) throws(RTPBuildError) {
        var csrcs = RTPCSRCList()
        for index in 0..<packet.csrcCount { try csrcs.append(packet.csrc(at: index)) }
        var headerExtension: RTPHeaderExtension? = nil
        if let view = packet.headerExtension { headerExtension = try RTPHeaderExtension(view) }
        self.init(
            marker: packet.marker,
            payloadType: packet.payloadType,
            sequenceNumber: packet.sequenceNumber,
            timestamp: packet.timestamp,
            ssrc: packet.ssrc,
            csrcs: csrcs,
            headerExtension: headerExtension
        )
    }

    /// Bytes the header occupies: 12 + 4 per CSRC + the extension's encoded length.
    public var encodedLength: Int {
        RTPPacketView.fixedHeaderLength + 4 * csrcs.count + (headerExtension?.encodedLength ?? 0)
    }

    /// Writes the header (padding bit clear) at the start of `buffer`.
    /// - Returns: the number of bytes written, ``encodedLength``.
    /// - Throws: ``RTPBuildError/bufferTooSmall(required:available:)`` or
    ///   ``RTPBuildError/invalidPayloadType(_:)``; nothing is written then.
    public func write(into buffer: UnsafeMutableRawBufferPointer) throws(RTPBuildError) -> Int {
        try write(into: buffer, padding: false)
    }

    /// Writes a whole packet: header, `payload`, and `paddingCount` bytes of padding (the last
    /// of which holds the count; 0 means no padding and a clear padding bit).
    /// - Returns: the number of bytes written.
    /// - Throws: ``RTPBuildError``; nothing is written then.
    public func write(
        payload: UnsafeRawBufferPointer,
        paddingCount: Int = 0,
        into buffer: UnsafeMutableRawBufferPointer
    ) throws(RTPBuildError) -> Int {
        guard paddingCount >= 0 && paddingCount <= 255 else { throw .invalidPaddingCount(paddingCount) }
        let total = encodedLength + payload.count + paddingCount
        guard total <= buffer.count else { throw .bufferTooSmall(required: total, available: buffer.count) }
        var offset = try write(into: buffer, padding: paddingCount > 0)
        if payload.count > 0 {
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + payload.count)]).copyMemory(from: payload)
            offset += payload.count
        }
        if paddingCount > 0 {
            for index in offset..<(offset + paddingCount - 1) { buffer[index] = 0 }
            buffer[offset + paddingCount - 1] = UInt8(paddingCount)
            offset += paddingCount
        }
        return offset
    }

    private func write(into buffer: UnsafeMutableRawBufferPointer, padding: Bool) throws(RTPBuildError) -> Int {
        guard payloadType <= 0x7F else { throw .invalidPayloadType(payloadType) }
        let length = encodedLength
        guard length <= buffer.count else { throw .bufferTooSmall(required: length, available: buffer.count) }
        var first: UInt8 = 2 << 6 | UInt8(csrcs.count)
        if padding { first |= 0x20 }
        if headerExtension != nil { first |= 0x10 }
        buffer[0] = first
        buffer[1] = (marker ? 0x80 : 0) | payloadType
        buffer.storeBigEndian(sequenceNumber, at: 2)
        buffer.storeBigEndian(timestamp, at: 4)
        buffer.storeBigEndian(ssrc, at: 8)
        var offset = RTPPacketView.fixedHeaderLength
        for csrc in csrcs {
            buffer.storeBigEndian(csrc, at: offset)
            offset += 4
        }
        if let headerExtension {
            headerExtension.write(into: buffer, at: offset)
            offset += headerExtension.encodedLength
        }
        return offset
    }
}
