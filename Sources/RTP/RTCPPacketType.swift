// SPDX-License-Identifier: Apache-2.0
/// The 8-bit packet type of an RTCP packet (RFC 3550 §12.1 and later registrations).
public struct RTCPPacketType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The wire value.
    public let rawValue: UInt8

    /// A packet type from its wire value.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Sender report, 200.
    public static let senderReport = RTCPPacketType(rawValue: 200)
    /// Receiver report, 201.
    public static let receiverReport = RTCPPacketType(rawValue: 201)
    /// Source description, 202.
    public static let sourceDescription = RTCPPacketType(rawValue: 202)
    /// Goodbye, 203.
    public static let bye = RTCPPacketType(rawValue: 203)
    /// Application-defined, 204.
    public static let applicationDefined = RTCPPacketType(rawValue: 204)
    /// Extended report (RFC 3611), 207.
    public static let extendedReport = RTCPPacketType(rawValue: 207)

    /// The RFC name (`SR`, `RR`, `SDES`, `BYE`, `APP`, `XR`) or the number.
    public var description: String {
        switch rawValue {
        case 200: "SR"
        case 201: "RR"
        case 202: "SDES"
        case 203: "BYE"
        case 204: "APP"
        case 207: "XR"
        default: "PT \(rawValue)"
        }
    }
}
