// SPDX-License-Identifier: Apache-2.0
/// Why an RTCP packet could not be written.
public enum RTCPBuildError: Error, Sendable, Hashable {
    /// The destination buffer holds `available` bytes but `required` are needed.
    case bufferTooSmall(required: Int, available: Int)
    /// More than 31 report blocks, SDES chunks or BYE sources in one packet (5-bit count).
    case tooManyEntries(RTCPPacketType, count: Int)
    /// An SDES item value longer than 255 bytes.
    case itemTooLong(length: Int)
    /// A BYE reason longer than 255 UTF-8 bytes.
    case reasonTooLong(length: Int)
    /// Profile-specific extension or opaque packet data not a multiple of 4 bytes.
    case notWordAligned(RTCPPacketType, length: Int)
    /// A packet count field above 31 in an opaque packet.
    case invalidCount(UInt8)
    /// A packet longer than the 16-bit length field can describe.
    case packetTooLong(length: Int)
    /// A VoIP Metrics block's jitter buffer adjustment rate above 15 (a 4-bit field).
    case jitterBufferRateOutOfRange(UInt8)
}
