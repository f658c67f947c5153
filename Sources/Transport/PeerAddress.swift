// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// A remote UDP address as the socket layer holds it: an IPv4 or IPv6 socket address kept by
/// value, ready for `sendto` without conversion and compared without allocating.
///
/// `UDPSocket.receive(into:)` reports each datagram's source as a `PeerAddress`, so a call can
/// latch its remote from authenticated packets (symmetric RTP) on the network thread without
/// turning addresses into text. Two addresses are equal when they name the same family, host
/// bytes, port and (IPv6) scope: an address from `recvfrom` equals the one built from the same
/// `UDPEndpoint`. The IPv6 flow label is not part of the address and is always zero here.
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    /// The `sockaddr_in` or `sockaddr_in6` bytes (zero past `length`); `==` and `hash` read
    /// the first `length` bytes only.
    var storage: sockaddr_storage
    /// How many bytes of `storage` the address uses: `sockaddr_in` or `sockaddr_in6` size.
    var length: socklen_t

    /// The address of `endpoint`; throws `inet_pton` `EINVAL` for a host that is not a numeric
    /// IPv4 or IPv6 address.
    public init(_ endpoint: UDPEndpoint) throws(SocketError) {
        if endpoint.host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = endpoint.port.bigEndian
            guard inet_pton(AF_INET6, endpoint.host, &address.sin6_addr) == 1 else { throw SocketError(function: "inet_pton", code: .invalidArgument) }
            self.init(address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            guard inet_pton(AF_INET, endpoint.host, &address.sin_addr) == 1 else { throw SocketError(function: "inet_pton", code: .invalidArgument) }
            self.init(address)
        }
    }

    /// An address from storage the system filled (`recvfrom`, `getsockname`): zero-filled past
    /// `length`, flow label cleared.
    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
        if family == AF_INET6 {
            withUnsafeMutablePointer(to: &self.storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_flowinfo = 0 }
            }
        }
    }

    /// Copies a `sockaddr_in` or `sockaddr_in6` into zeroed storage.
    init<Address>(_ address: Address) {
        var storage = sockaddr_storage()
        withUnsafeBytes(of: address) { source in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
        }
        self.init(storage: storage, length: socklen_t(MemoryLayout<Address>.size))
    }

    /// Lets a system call that reports an address (`recvfrom`, `getsockname`) write one:
    /// returns the call's result and the address, meaningful when the call succeeded.
    static func filled<Result>(by call: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Result) -> (result: Result, address: PeerAddress) {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, &length) }
        }
        return (result, PeerAddress(storage: storage, length: length))
    }

    /// `AF_INET` or `AF_INET6`.
    var family: Int32 { Int32(storage.ss_family) }

    /// The UDP port.
    public var port: UInt16 {
        var storage = self.storage
        // sin_port and sin6_port sit at the same offset, right after the family.
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// The numeric host and port. Allocates (the host is text): for display and logs, not
    /// for the packet path.
    public var endpoint: UDPEndpoint {
        var storage = self.storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = self.family
        let host = withUnsafePointer(to: &storage) { pointer -> String in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                    return Self.string(fromNulTerminated: text)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var raw = address.pointee.sin_addr
                inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                return Self.string(fromNulTerminated: text)
            }
        }
        return UDPEndpoint(host: host, port: port)
    }

    /// `"host:port"`, `"[v6host]:port"`, as `UDPEndpoint` prints it.
    public var description: String { endpoint.description }

    /// Calls `body` with the address as `sendto` and `bind` take it.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var storage = self.storage
        let length = self.length
        return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }

    public static func == (left: PeerAddress, right: PeerAddress) -> Bool {
        guard left.length == right.length else { return false }
        return withUnsafeBytes(of: left.storage) { leftBytes in
            withUnsafeBytes(of: right.storage) { rightBytes in
                // Only the used bytes: the rest is zero on both sides by construction, but a
                // `length` the system reported is the authority.
                memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, Int(min(left.length, socklen_t(leftBytes.count)))) == 0
            }
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(length)
        withUnsafeBytes(of: storage) { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.prefix(Int(min(length, socklen_t($0.count)))))) }
    }

    private static func string(fromNulTerminated text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
