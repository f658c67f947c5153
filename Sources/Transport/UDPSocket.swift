internal import Glibc
import SystemErrors

/// A non-blocking UDP socket for one media flow (RTP, RTCP, or both with rtcp-mux).
///
/// Sending and receiving use caller-provided buffers and make no heap allocation, so both
/// may run on the audio thread. `send(_:)` goes to the remote set with `setRemote(_:)`.
/// Thread rules: set the remote before the socket is shared; afterwards one thread may
/// send while another receives.
public final class UDPSocket: @unchecked Sendable {
    /// The address the socket is bound to (with the port the system chose for port 0).
    public let localEndpoint: UDPEndpoint

    private let descriptor: Int32
    private var remote: SocketAddress?

    /// Opens a socket bound to `endpoint` (port 0: any free port).
    public init(bindingTo endpoint: UDPEndpoint) throws(SocketError) {
        let address = try endpoint.socketAddress()
        let descriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .current("socket") }
        var storage = address.storage
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, address.length) }
        }
        guard bound == 0 else {
            let error = SocketError.current("bind")
            close(descriptor)
            throw error
        }
        var local = SocketAddress(storage: sockaddr_storage(), length: socklen_t(MemoryLayout<sockaddr_storage>.size))
        let named = withUnsafeMutablePointer(to: &local.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &local.length) }
        }
        guard named == 0 else {
            let error = SocketError.current("getsockname")
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.localEndpoint = local.endpoint()
    }

    deinit {
        close(descriptor)
    }

    /// Sets where `send(_:)` delivers datagrams.
    public func setRemote(_ endpoint: UDPEndpoint) throws(SocketError) {
        remote = try endpoint.socketAddress()
    }

    /// Sends one datagram to the remote. Returns false when the socket's send buffer is
    /// full (`EAGAIN`): the datagram was dropped, as the network could have done.
    @discardableResult
    public func send(_ datagram: UnsafeRawBufferPointer) throws(SocketError) -> Bool {
        guard var destination = remote else { throw SocketError(function: "sendto", code: .addressRequired) }
        let length = destination.length
        let sent = withUnsafePointer(to: &destination.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                sendto(descriptor, datagram.baseAddress, datagram.count, Int32(MSG_NOSIGNAL), $0, length)
            }
        }
        if sent >= 0 { return true }
        switch Errno.current {
        case .resourceTemporarilyUnavailable, .wouldBlock, .noBufferSpace: return false
        // Loopback reports a closed peer port from an earlier send as ECONNREFUSED; for RTP
        // that is a lost datagram, not a broken socket.
        case .connectionRefused: return false
        case let code: throw SocketError(function: "sendto", code: code)
        }
    }

    /// Receives one datagram into `buffer`. Returns its length on the wire, or nil when none
    /// is waiting.
    ///
    /// A datagram longer than `buffer` is not an error of the socket: anyone who can reach the
    /// port can send one, and it must not end a call. The system stores its first
    /// `buffer.count` bytes and drops the rest, and `receive` returns the full length, which
    /// is then greater than `buffer.count`: the caller decides (drop and count it, as
    /// `CallMedia.receiveDatagram` does with datagrams over its limit). Slice the buffer with
    /// `min(length, buffer.count)`, never with the length alone:
    ///
    /// ```swift
    /// while let length = try socket.receive(into: buffer) {
    ///     guard length <= buffer.count else { truncated += 1; continue }
    ///     handle(UnsafeRawBufferPointer(rebasing: buffer[0..<length]))
    /// }
    /// ```
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> Int? {
        while true {
            // MSG_TRUNC: recv returns the datagram's real length even when it was cut short.
            let received = recv(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC))
            if received >= 0 { return received }
            switch Errno.current {
            case .resourceTemporarilyUnavailable, .wouldBlock: return nil
            case .interrupted: continue
            case .connectionRefused: continue  // an ICMP error from an earlier send, not a datagram
            case let code: throw SocketError(function: "recv", code: code)
            }
        }
    }

    /// Waits until a datagram is ready or `timeoutMs` passes; true when one is ready.
    public func waitForData(timeoutMs: Int) throws(SocketError) -> Bool {
        var descriptorSet = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&descriptorSet, 1, Int32(clamping: timeoutMs))
            if ready >= 0 { return ready > 0 }
            let code = Errno.current
            if code != .interrupted { throw SocketError(function: "poll", code: code) }
        }
    }
}
