internal import Glibc

/// An IPv4 or IPv6 address and UDP port.
public struct UDPEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// Numeric host, e.g. `"127.0.0.1"` or `"::1"`.
    public var host: String
    /// UDP port; 0 asks the system for a free one when binding.
    public var port: UInt16

    /// An endpoint from a numeric host and a port.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The socket address for this endpoint; throws `EINVAL` from `inet_pton` for a
    /// host that is not a numeric IPv4/IPv6 address.
    func socketAddress() throws(SocketError) -> SocketAddress {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw SocketError(function: "inet_pton", code: .invalidArgument) }
            return SocketAddress(address)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw SocketError(function: "inet_pton", code: .invalidArgument) }
        return SocketAddress(address)
    }
}

/// A resolved `sockaddr` kept by value, so sending needs no conversion per packet.
struct SocketAddress: Sendable {
    var storage: sockaddr_storage
    var length: socklen_t

    init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// Copies a `sockaddr_in` or `sockaddr_in6` into storage.
    init<Address>(_ address: Address) {
        var storage = sockaddr_storage()
        withUnsafeBytes(of: address) { source in
            withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: source) }
        }
        self.init(storage: storage, length: socklen_t(MemoryLayout<Address>.size))
    }

    var family: Int32 { Int32(storage.ss_family) }

    func endpoint() -> UDPEndpoint {
        var storage = self.storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        return withUnsafePointer(to: &storage) { pointer -> UDPEndpoint in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                    return UDPEndpoint(host: Self.string(fromNulTerminated: text), port: UInt16(bigEndian: address.pointee.sin6_port))
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var raw = address.pointee.sin_addr
                inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                return UDPEndpoint(host: Self.string(fromNulTerminated: text), port: UInt16(bigEndian: address.pointee.sin_port))
            }
        }
    }

    private static func string(fromNulTerminated text: [CChar]) -> String {
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
