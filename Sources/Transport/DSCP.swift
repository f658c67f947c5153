// SPDX-License-Identifier: Apache-2.0
/// A Differentiated Services code point (RFC 2474): the six upper bits of the IPv4 TOS byte
/// or IPv6 traffic class, which tell routers and Wi-Fi access points (WMM) how to queue a
/// packet. `UDPSocket.setTrafficClass(_:)` marks a socket's datagrams with one.
public struct DSCP: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code point, 0…63.
    public let rawValue: UInt8

    /// The code point `rawValue`; nil beyond 63 (six bits).
    public init?(rawValue: UInt8) {
        guard rawValue <= 63 else { return nil }
        self.rawValue = rawValue
    }

    /// EF, 46: expedited forwarding, RFC 4594's class for telephony (RTP voice, RFC 3246).
    public static let expeditedForwarding = DSCP(rawValue: 46)!
    /// Default forwarding, 0: best effort, what an unmarked packet gets.
    public static let bestEffort = DSCP(rawValue: 0)!

    /// The TOS / traffic-class byte carrying this code point (the two ECN bits zero).
    public var trafficClassByte: UInt8 { rawValue << 2 }

    public var description: String { "DSCP \(rawValue)" }
}
