// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// Socket options a softphone sets once after opening its media socket.
extension UDPSocket {
    /// The buffer sizes `setReceiveBufferSize` and `setSendBufferSize` accept, in bytes. The
    /// upper bound keeps the system's doubling (below) within `Int32`.
    public static let bufferSizeRange = 1...(1 << 30)

    /// Marks every datagram the socket sends with `dscp`: `IP_TOS` on an IPv4 socket,
    /// `IPV6_TCLASS` on an IPv6 one, with the value `dscp << 2` (ECN bits zero). Voice uses
    /// `.expeditedForwarding`. Needs no privilege; the network may still ignore or rewrite it.
    public func setTrafficClass(_ dscp: DSCP) throws(SocketError) {
        if family == AF_INET6 {
            try setOption(Int32(IPPROTO_IPV6), IPV6_TCLASS, Int32(dscp.trafficClassByte), name: "IPV6_TCLASS")
        } else {
            try setOption(Int32(IPPROTO_IP), IP_TOS, Int32(dscp.trafficClassByte), name: "IP_TOS")
        }
    }

    /// The code point the socket marks its datagrams with (read back from the system).
    public var trafficClass: DSCP {
        get throws(SocketError) {
            let byte = family == AF_INET6
                ? try option(Int32(IPPROTO_IPV6), IPV6_TCLASS, name: "IPV6_TCLASS")
                : try option(Int32(IPPROTO_IP), IP_TOS, name: "IP_TOS")
            return DSCP(rawValue: UInt8(truncatingIfNeeded: byte) >> 2)!
        }
    }

    /// Asks for a receive buffer of `bytes` (`SO_RCVBUF`), e.g. to hold a burst of datagrams
    /// while the network thread is late, and returns the size the system granted: Linux
    /// doubles the request for its bookkeeping, raises it to its minimum and caps it at
    /// `net.core.rmem_max` (doubled). Throws `EINVAL` for a size outside `bufferSizeRange`.
    @discardableResult
    public func setReceiveBufferSize(bytes: Int) throws(SocketError) -> Int {
        try setBufferSize(SO_RCVBUF, bytes: bytes, name: "SO_RCVBUF")
        return try receiveBufferSize
    }

    /// Asks for a send buffer of `bytes` (`SO_SNDBUF`) and returns the size the system
    /// granted (doubled, raised to its minimum, capped at `net.core.wmem_max` doubled).
    /// Throws `EINVAL` for a size outside `bufferSizeRange`.
    @discardableResult
    public func setSendBufferSize(bytes: Int) throws(SocketError) -> Int {
        try setBufferSize(SO_SNDBUF, bytes: bytes, name: "SO_SNDBUF")
        return try sendBufferSize
    }

    /// The receive buffer's size in bytes as the system reports it (`SO_RCVBUF`).
    public var receiveBufferSize: Int {
        get throws(SocketError) { Int(try option(SOL_SOCKET, SO_RCVBUF, name: "SO_RCVBUF")) }
    }

    /// The send buffer's size in bytes as the system reports it (`SO_SNDBUF`).
    public var sendBufferSize: Int {
        get throws(SocketError) { Int(try option(SOL_SOCKET, SO_SNDBUF, name: "SO_SNDBUF")) }
    }

    private func setBufferSize(_ option: Int32, bytes: Int, name: String) throws(SocketError) {
        guard Self.bufferSizeRange.contains(bytes) else { throw SocketError(function: "setsockopt(\(name))", code: .invalidArgument) }
        try setOption(SOL_SOCKET, option, Int32(bytes), name: name)
    }

    private func setOption(_ level: Int32, _ option: Int32, _ value: Int32, name: String) throws(SocketError) {
        var value = value
        guard setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .current("setsockopt(\(name))")
        }
    }

    private func option(_ level: Int32, _ option: Int32, name: String) throws(SocketError) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, level, option, &value, &length) == 0 else { throw .current("getsockopt(\(name))") }
        return value
    }
}
