// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import Locking
import Synchronization
import SystemErrors

/// A non-blocking UDP socket for one media flow (RTP, RTCP, or both with rtcp-mux).
///
/// Sending and receiving use caller-provided buffers and make no heap allocation. `send(_:)`
/// goes to the remote set with `setRemote(_:)`; `send(_:to:)` to any address, and
/// `receive(into:)` reports each datagram's source, so a call can follow its peer (symmetric
/// RTP: latch the remote from authenticated packets only).
///
/// Threads: sockets belong to the network thread (which also runs SRTP), not the audio
/// thread. One thread may send while another receives, and the remote may be changed from
/// any thread at any time: it sits behind a lock (`Locked`) that `send(_:)` holds only while copying
/// it out, so a send goes wholly to the old or wholly to the new remote. That lock is why
/// `send(_:)` is not for a real-time thread; `send(_:to:)` and `receive(into:)` take no lock.
public final class UDPSocket: @unchecked Sendable {
    /// The address the socket is bound to (with the port the system chose for port 0).
    public let localEndpoint: UDPEndpoint

    /// The socket's file descriptor, for `SocketPoller`.
    let descriptor: Int32
    /// `AF_INET` or `AF_INET6`, from the bound address.
    let family: Int32
    private let remoteAddress = Locked<PeerAddress?>(nil)

    /// Opens a socket bound to `endpoint` (port 0: any free port).
    public init(bindingTo endpoint: UDPEndpoint) throws(SocketError) {
        let address = try PeerAddress(endpoint)
        let descriptor = socket(address.family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .current("socket") }
        let bound = address.withSocketAddress { bind(descriptor, $0, $1) }
        guard bound == 0 else {
            let error = SocketError.current("bind")
            close(descriptor)
            throw error
        }
        let (named, local) = PeerAddress.filled { getsockname(descriptor, $0, $1) }
        guard named == 0 else {
            let error = SocketError.current("getsockname")
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.family = address.family
        self.localEndpoint = local.endpoint
    }

    deinit {
        close(descriptor)
    }

    /// Where `send(_:)` delivers datagrams; nil until `setRemote` is called.
    public var remote: PeerAddress? { remoteAddress.withLock { $0 } }

    /// Sets where `send(_:)` delivers datagrams; throws `inet_pton` `EINVAL` for a host that
    /// is not a numeric address.
    public func setRemote(_ endpoint: UDPEndpoint) throws(SocketError) {
        setRemote(try PeerAddress(endpoint))
    }

    /// Sets where `send(_:)` delivers datagrams, e.g. to the source of an authenticated
    /// packet (symmetric RTP). Safe while another thread sends. An address of the other
    /// family than the socket's fails at the next send (`sendto` `EAFNOSUPPORT`).
    public func setRemote(_ address: PeerAddress) {
        remoteAddress.withLock { $0 = address }
    }

    /// Sends one datagram to the remote. Returns false when the socket's send buffer is
    /// full (`EAGAIN`): the datagram was dropped, as the network could have done. Throws
    /// `sendto` `EDESTADDRREQ` when no remote is set.
    @discardableResult
    public func send(_ datagram: UnsafeRawBufferPointer) throws(SocketError) -> Bool {
        guard let destination = remote else { throw SocketError(function: "sendto", code: .addressRequired) }
        return try send(datagram, to: destination)
    }

    /// Sends one datagram to `destination`. Returns false when the socket's send buffer is
    /// full (`EAGAIN`): the datagram was dropped, as the network could have done.
    @discardableResult
    public func send(_ datagram: UnsafeRawBufferPointer, to destination: PeerAddress) throws(SocketError) -> Bool {
        let sent = destination.withSocketAddress {
            sendto(descriptor, datagram.baseAddress, datagram.count, Int32(MSG_NOSIGNAL), $0, $1)
        }
        if sent >= 0 { return true }
        switch Errno.current {
        case .resourceTemporarilyUnavailable, .wouldBlock, .noBufferSpace: return false
        // An ICMP error for an earlier send (ECONNREFUSED for a closed port, EHOSTUNREACH or
        // ENETUNREACH from a router that cannot deliver): for RTP a lost datagram, not a
        // broken socket.
        case let code where code.isUnreachableReport: return false
        case let code: throw SocketError(function: "sendto", code: code)
        }
    }

    /// Receives one datagram into `buffer`: its length on the wire and its source, or nil
    /// when none is waiting. Allocates nothing.
    ///
    /// A datagram longer than `buffer` is not an error of the socket: anyone who can reach the
    /// port can send one, and it must not end a call. The system stores its first
    /// `buffer.count` bytes and drops the rest, and `receive` reports the full length, which
    /// is then greater than `buffer.count`: the caller decides (drop and count it, as
    /// `CallMedia.receiveDatagram` does with datagrams over its limit). Slice the buffer with
    /// `min(length, buffer.count)`, never with the length alone:
    ///
    /// ```swift
    /// while let datagram = try socket.receive(into: buffer) {
    ///     guard datagram.length <= buffer.count else { truncated += 1; continue }
    ///     handle(UnsafeRawBufferPointer(rebasing: buffer[0..<datagram.length]), from: datagram.source)
    /// }
    /// ```
    public func receive(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> ReceivedDatagram? {
        while true {
            // MSG_TRUNC: recvfrom returns the datagram's real length even when it was cut short.
            let (received, source) = PeerAddress.filled {
                recvfrom(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_TRUNC), $0, $1)
            }
            if received >= 0 { return ReceivedDatagram(length: received, source: source) }
            switch Errno.current {
            case .resourceTemporarilyUnavailable, .wouldBlock: return nil
            case .interrupted: continue
            // An ICMP error from an earlier send (port, host or network unreachable), not a datagram.
            case let code where code.isUnreachableReport: continue
            case let code: throw SocketError(function: "recvfrom", code: code)
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
