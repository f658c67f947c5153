// SPDX-License-Identifier: Apache-2.0
/// Why an RTP packet could not be parsed. Thrown by ``RTPPacketView/init(_:)``; every case
/// carries the numbers that made the packet invalid, and none of them allocates.
public enum RTPParseError: Error, Sendable, Hashable {
    /// Fewer than the 12 bytes of the fixed header (`length` bytes were given).
    case tooShort(length: Int)
    /// The version field is not 2.
    case badVersion(UInt8)
    /// The CSRC count announces more identifiers than the packet holds.
    case csrcListPastEnd(csrcCount: Int, length: Int)
    /// The header extension (its 4-byte header or its announced words) runs past the end of
    /// the packet; `requiredLength` is the length the packet would need.
    case extensionPastEnd(requiredLength: Int, length: Int)
    /// The padding bit is set but the last byte (the padding count) is zero.
    case zeroPaddingCount
    /// The padding count is larger than the bytes left after the header.
    case paddingLongerThanPayload(paddingCount: Int, available: Int)
    /// An RFC 8285 one-byte or two-byte extension element is cut off by the end of the
    /// extension data; `offset` is the element's offset inside the extension data.
    case malformedExtensionElement(offset: Int)
}
