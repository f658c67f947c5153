// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// Where an address can be reached from: what tells a peer behind a NAT, whose SDP offers an
/// address nobody outside its own network can send to, from one on the internet.
public enum AddressScope: Sendable, Equatable {
    /// This host only: 127.0.0.0/8, ::1.
    case loopback
    /// The link only: 169.254.0.0/16, fe80::/10.
    case linkLocal
    /// A private network, behind a NAT as seen from outside it: 10.0.0.0/8, 172.16.0.0/12,
    /// 192.168.0.0/16 (RFC 1918), 100.64.0.0/10 (a carrier's NAT, RFC 6598), fc00::/7 (RFC 4193).
    case privateNetwork
    /// Anything else: reachable from the internet, firewalls allowing.
    case global
}

extension PeerAddress {
    /// The address's scope, from its bytes (an IPv4-mapped IPv6 address as its IPv4 address).
    /// Allocates: for deciding and explaining, not for the packet path.
    public var scope: AddressScope {
        var storage = self.storage
        let family = self.family
        return withUnsafePointer(to: &storage) { pointer -> AddressScope in
            if family == AF_INET6 {
                let bytes = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }
                }
                if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                    return Self.scope(ipv4: Array(bytes[12..<16]))
                }
                if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return .loopback }
                if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return .linkLocal }
                if bytes[0] & 0xfe == 0xfc { return .privateNetwork }
                return .global
            }
            let bytes = pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                withUnsafeBytes(of: address.pointee.sin_addr) { Array($0) }
            }
            return Self.scope(ipv4: bytes)
        }
    }

    private static func scope(ipv4 bytes: [UInt8]) -> AddressScope {
        switch (bytes[0], bytes[1]) {
        case (127, _): return .loopback
        case (169, 254): return .linkLocal
        case (10, _), (192, 168): return .privateNetwork
        case (172, let second) where second & 0xf0 == 16: return .privateNetwork
        case (100, let second) where second & 0xc0 == 64: return .privateNetwork
        default: return .global
        }
    }
}
