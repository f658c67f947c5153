// SPDX-License-Identifier: Apache-2.0
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
        // ICMP port, host or network unreachable: nobody there.
        case let code where code.isUnreachableReport: return .refused
        default: throw SocketError(function: "sendto", code: code)
        }
    }

    /// Takes the ICMP errors the system queued for this socket (with `reportICMPErrors()`) and
    /// returns how many there were: each is a datagram the peer's host refused.
    ///
    /// Call it whenever the socket polls ready: a queued error keeps `poll` reporting the socket
    /// ready (POLLERR) until it is taken, and `receive(into:)` skips it without taking it.
    /// Anyone who knows the two addresses can forge these; `takeRefusals(recognising:)` tells
    /// the ones that quote a datagram we sent from the rest.
    public func takeRefusals() -> Int {
        takeRefusals { _ in true }.recognised
    }

    /// Takes the ICMP errors queued for this socket, like `takeRefusals()`, and hands the start
    /// of the datagram each one quotes (ICMP carries the refused datagram's first bytes; here up
    /// to `Refusals.quotedBytes` of its UDP payload) to `isOurs`: an error that quotes nothing
    /// we sent is forged — an RTP header's sequence number, timestamp and SSRC cannot be
    /// guessed from off the path — and is counted apart, so it cannot end a call.
    public func takeRefusals(recognising isOurs: (UnsafeRawBufferPointer) -> Bool) -> Refusals {
        var refusals = Refusals()
        withUnsafeTemporaryAllocation(byteCount: Refusals.quotedBytes, alignment: 1) { quote in
            while true {
                let received = withUnsafeTemporaryAllocation(of: iovec.self, capacity: 1) { vector in
                    vector[0] = iovec(iov_base: quote.baseAddress, iov_len: quote.count)
                    var header = msghdr()
                    header.msg_iov = vector.baseAddress
                    header.msg_iovlen = 1
                    return recvmsg(descriptor, &header, Int32(MSG_ERRQUEUE) | Int32(MSG_DONTWAIT))
                }
                if received < 0 { break }
                if isOurs(UnsafeRawBufferPointer(rebasing: quote[0..<min(received, quote.count)])) {
                    refusals.recognised += 1
                } else {
                    refusals.unrecognised += 1
                }
            }
        }
        // Clear the pending error too, so the next send does not fail on an old refusal.
        var pending: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        _ = getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &pending, &length)
        return refusals
    }
}

/// The ICMP errors `UDPSocket.takeRefusals(recognising:)` took, by whether they quoted one of
/// our datagrams.
public struct Refusals: Sendable, Equatable {
    /// The most bytes of a refused datagram handed to the recogniser: an RTP header's fixed
    /// part (RFC 792 guarantees only 8; Linux quotes far more).
    public static let quotedBytes = 12
    /// Errors that quote a datagram the recogniser knows: the peer's host refused it.
    public var recognised = 0
    /// Errors that quote nothing we sent: forged (or about a datagram long forgotten).
    public var unrecognised = 0

    /// No refusals.
    public init(recognised: Int = 0, unrecognised: Int = 0) {
        self.recognised = recognised
        self.unrecognised = unrecognised
    }
}
