// SPDX-License-Identifier: Apache-2.0
/// An RTCP packet of a type this module does not decode (APP, feedback, …), kept as its
/// header fields and body so a compound packet round-trips.
public struct RTCPOpaquePacket: Sendable, Hashable {
    /// The packet type.
    public var packetType: RTCPPacketType
    /// The 5-bit count/subtype field of the header.
    public var count: UInt8
    /// The bytes after the 4-byte header, padding removed (a multiple of 4 when written).
    public var body: [UInt8]

    /// An opaque packet with the given fields.
    public init(packetType: RTCPPacketType, count: UInt8, body: [UInt8]) {
        self.packetType = packetType
        self.count = count
        self.body = body
    }

    func validate() throws(RTCPBuildError) {
        guard count <= 31 else { throw .invalidCount(count) }
        guard body.count % 4 == 0 else { throw .notWordAligned(packetType, length: body.count) }
    }
}
