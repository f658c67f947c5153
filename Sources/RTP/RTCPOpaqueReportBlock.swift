// SPDX-License-Identifier: Apache-2.0
/// An RTCP XR report block of a type this module does not decode (loss or duplicate RLE,
/// packet receipt times, RRTR, DLRR, statistics summary, later registrations), kept as its
/// header fields and contents so an extended report round-trips.
public struct RTCPOpaqueReportBlock: Sendable, Hashable {
    /// The block type (BT).
    public var blockType: UInt8
    /// The 8-bit type-specific field of the block header.
    public var typeSpecific: UInt8
    /// The bytes after the 4-byte block header (a multiple of 4 when written).
    public var contents: [UInt8]

    /// An opaque block with the given fields.
    public init(blockType: UInt8, typeSpecific: UInt8, contents: [UInt8]) {
        self.blockType = blockType
        self.typeSpecific = typeSpecific
        self.contents = contents
    }

    func validate() throws(RTCPBuildError) {
        guard contents.count % 4 == 0 else { throw .notWordAligned(.extendedReport, length: contents.count) }
    }

    /// Writes the whole block, header included, at `offset`.
    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        buffer[offset] = blockType
        buffer[offset + 1] = typeSpecific
        buffer.storeBigEndian(UInt16(truncatingIfNeeded: contents.count / 4), at: offset + 2)
        for (index, byte) in contents.enumerated() { buffer[offset + 4 + index] = byte }
    }
}
