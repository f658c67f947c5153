// SPDX-License-Identifier: Apache-2.0
/// Where a validated RTP packet's header, extension and padding lie (``RTPPacketView/layout``):
/// what a parse found, in a form that travels beside a copy of the packet, packed into 64 bits
/// (a queue slot's tag) and back.
public struct RTPPacketLayout: Hashable, Sendable, CustomStringConvertible {
    /// Length of the header: fixed part, CSRC list and header extension.
    public let headerLength: Int
    /// Padding bytes at the end of the packet.
    public let paddingCount: Int
    /// Offset of the 4-byte extension header, or -1 without one.
    let extensionOffset: Int

    package init(headerLength: Int, paddingCount: Int, extensionOffset: Int) {
        self.headerLength = headerLength
        self.paddingCount = paddingCount
        self.extensionOffset = extensionOffset
    }

    /// The layout in 64 bits, exact for every packet: header length and extension offset in
    /// 28 bits each (a header is at most 12 + 60 + 4 + 262,140 bytes), padding count in 8.
    public var bitPattern: UInt64 {
        UInt64(headerLength) | UInt64(paddingCount) << 28 | UInt64(extensionOffset + 1) << 36
    }

    /// The layout packed by ``bitPattern``.
    public init(bitPattern: UInt64) {
        headerLength = Int(bitPattern & 0x0FFF_FFFF)
        paddingCount = Int((bitPattern >> 28) & 0xFF)
        extensionOffset = Int((bitPattern >> 36) & 0x0FFF_FFFF) - 1
    }

    /// The layout in words, for messages.
    public var description: String {
        "header \(headerLength) bytes, padding \(paddingCount), extension at \(extensionOffset)"
    }
}
