internal import Glibc
import SystemErrors

/// What became of one datagram handed to `UDPSocket.sendNoticingRefusal(_:to:)`.
public enum SendOutcome: Sendable, Equatable {
    /// The system took it.
    case sent
    /// The send buffer was full: dropped, as the network could have done.
    case dropped
    /// The peer's host answered an earlier datagram with ICMP port unreachable (nobody
    /// listens there): this one was not sent.
    case refused
}

extension UDPSocket {
    /// Asks the system to report ICMP errors (port unreachable) on this unconnected socket
    /// (`IP_RECVERR` / `IPV6_RECVERR`): without it Linux reports them only on connected sockets,
    /// and a sender to a port nobody listens on would never know.
    public func reportICMPErrors() throws(SocketError) {
        var on: Int32 = 1
        // IP_RECVERR (11) and IPV6_RECVERR (25) from <bits/in.h>.
        let (level, option) = family == Int32(AF_INET6) ? (Int32(IPPROTO_IPV6), Int32(25)) : (Int32(IPPROTO_IP), Int32(11))
        guard setsockopt(descriptor, level, option, &on, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .current("setsockopt")
        }
    }

    /// Sends one datagram to `destination` like `send(_:to:)`, but tells a refusal (an ICMP
    /// error from an earlier datagram, reported with `reportICMPErrors()`) from a full buffer.
    public func sendNoticingRefusal(_ datagram: UnsafeRawBufferPointer, to destination: PeerAddress) throws(SocketError) -> SendOutcome {
        let sent = destination.withSocketAddress {
            sendto(descriptor, datagram.baseAddress, datagram.count, Int32(MSG_NOSIGNAL), $0, $1)
        }
        if sent >= 0 { return .sent }
        let code = Errno.current
        switch code {
        case .resourceTemporarilyUnavailable, .wouldBlock, .noBufferSpace: return .dropped
        case .connectionRefused: return .refused
        default:
            // ICMP host or network unreachable: nobody there either.
            if code.rawValue == EHOSTUNREACH || code.rawValue == ENETUNREACH { return .refused }
            throw SocketError(function: "sendto", code: code)
        }
    }
}
