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
    func socketAddress() throws(SocketError) -> PeerAddress {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw SocketError(function: "inet_pton", code: .invalidArgument) }
            return PeerAddress(address)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw SocketError(function: "inet_pton", code: .invalidArgument) }
        return PeerAddress(address)
    }
}
