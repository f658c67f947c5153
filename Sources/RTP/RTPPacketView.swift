// SPDX-License-Identifier: Apache-2.0
/// A received RTP packet (RFC 3550 §5.1), parsed in place over the caller's bytes.
///
/// Parsing validates the whole header — version, CSRC list, header extension (including
/// every RFC 8285 element) and padding — so the accessors below never fail and never read
/// past the buffer. Nothing is copied and nothing is allocated.
///
/// The view borrows the buffer: it is valid only while those bytes are, and is therefore not
/// `Sendable`. Copy what you keep (``RTPHeader/init(_:)`` copies the header).
///
/// ```swift
/// try datagram.withUnsafeBytes { bytes in
///     let packet = try RTPPacketView(bytes)
///     decoder.decode(packet.payload, sequenceNumber: packet.sequenceNumber)
/// }
/// ```
public struct RTPPacketView {
    /// The whole packet as given to ``init(_:)``.
    public let bytes: UnsafeRawBufferPointer
    /// Length of the header: fixed part, CSRC list and header extension.
    public let headerLength: Int
    /// Number of padding bytes at the end of the packet (0 if the padding bit is clear).
    public let paddingCount: Int
    private let extensionOffset: Int  // offset of the 4-byte extension header, or -1

    /// Length of the fixed header in bytes.
    public static let fixedHeaderLength = 12

    /// Parses and validates the packet in `bytes`.
    /// - Throws: ``RTPParseError`` naming the first problem found.
    public init(_ bytes: UnsafeRawBufferPointer) throws(RTPParseError) {
        let length = bytes.count
        guard length >= Self.fixedHeaderLength else { throw .tooShort(length: length) }
        let first = bytes[0]
        let version = first >> 6
        guard version == 2 else { throw .badVersion(version) }
        let csrcCount = Int(first & 0x0F)
        var offset = Self.fixedHeaderLength + 4 * csrcCount
        guard offset <= length else { throw .csrcListPastEnd(csrcCount: csrcCount, length: length) }
        var extensionOffset = -1
        if first & 0x10 != 0 {
            guard offset + 4 <= length else {
                throw .extensionPastEnd(requiredLength: offset + 4, length: length)
            }
            let words = Int(bytes.bigEndianUInt16(at: offset + 2))
            let end = offset + 4 + 4 * words
            guard end <= length else { throw .extensionPastEnd(requiredLength: end, length: length) }
            let profile = bytes.bigEndianUInt16(at: offset)
            let data = UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<end])
            try RTPHeaderExtensionView.validateElements(profile: profile, data: data)
            extensionOffset = offset
            offset = end
        }
        var paddingCount = 0
        if first & 0x20 != 0 {
            // The padding count is the last byte; it counts itself and may not be zero.
            guard length > offset else { throw .paddingLongerThanPayload(paddingCount: 0, available: 0) }
            paddingCount = Int(bytes[length - 1])
            guard paddingCount > 0 else { throw .zeroPaddingCount }
            guard paddingCount <= length - offset else {
                throw .paddingLongerThanPayload(paddingCount: paddingCount, available: length - offset)
            }
        }
        self.bytes = bytes
        self.headerLength = offset
        self.paddingCount = paddingCount
        self.extensionOffset = extensionOffset
    }

    /// Where this packet's parts lie, as the parse found them: kept beside a copy of the same
    /// bytes (a queue slot), it lets the reader rebuild the view without validating again.
    public var layout: RTPPacketLayout {
        RTPPacketLayout(headerLength: headerLength, paddingCount: paddingCount, extensionOffset: extensionOffset)
    }

    /// The view of bytes already validated by ``init(_:)``, rebuilt from the `layout` that
    /// parse found: for one thread that parsed a packet handing its bytes to another. The bytes
    /// must be the ones parsed (or an exact copy); the checks here only keep the accessors
    /// inside the buffer.
    package init(validatedBytes bytes: UnsafeRawBufferPointer, layout: RTPPacketLayout) {
        precondition(
            layout.headerLength >= Self.fixedHeaderLength && layout.headerLength + layout.paddingCount <= bytes.count
                && layout.extensionOffset < layout.headerLength,
            "RTPPacketView(validatedBytes:layout:): \(layout) does not fit \(bytes.count) bytes")
        self.bytes = bytes
        self.headerLength = layout.headerLength
        self.paddingCount = layout.paddingCount
        self.extensionOffset = layout.extensionOffset
    }

    /// The version field (always 2 after a successful parse).
    public var version: UInt8 { bytes[0] >> 6 }
    /// Whether the padding bit is set.
    public var hasPadding: Bool { bytes[0] & 0x20 != 0 }
    /// Whether the extension bit is set.
    public var hasExtension: Bool { bytes[0] & 0x10 != 0 }
    /// Number of CSRC identifiers (0–15).
    public var csrcCount: Int { Int(bytes[0] & 0x0F) }
    /// The marker bit.
    public var marker: Bool { bytes[1] & 0x80 != 0 }
    /// The 7-bit payload type.
    public var payloadType: UInt8 { bytes[1] & 0x7F }
    /// The 16-bit sequence number.
    public var sequenceNumber: UInt16 { bytes.bigEndianUInt16(at: 2) }
    /// The 32-bit RTP timestamp.
    public var timestamp: UInt32 { bytes.bigEndianUInt32(at: 4) }
    /// The synchronisation source identifier.
    public var ssrc: UInt32 { bytes.bigEndianUInt32(at: 8) }

    /// The CSRC identifier at `index`, which must be below ``csrcCount``.
    public func csrc(at index: Int) -> UInt32 {
        precondition(index >= 0 && index < csrcCount, "CSRC index \(index) out of range 0..<\(csrcCount)")
        return bytes.bigEndianUInt32(at: Self.fixedHeaderLength + 4 * index)
    }

    /// The header extension, or `nil` if the extension bit is clear.
    public var headerExtension: RTPHeaderExtensionView? {
        guard extensionOffset >= 0 else { return nil }
        let words = Int(bytes.bigEndianUInt16(at: extensionOffset + 2))
        let start = extensionOffset + 4
        return RTPHeaderExtensionView(
            profile: bytes.bigEndianUInt16(at: extensionOffset),
            data: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + 4 * words)])
        )
    }

    /// Byte range of the payload within ``bytes``, padding removed.
    public var payloadRange: Range<Int> { headerLength..<(bytes.count - paddingCount) }

    /// The payload bytes, padding removed.
    public var payload: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: bytes[payloadRange]) }
}
