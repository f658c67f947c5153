// SPDX-License-Identifier: Apache-2.0
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
}
