// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemErrors
import Testing
import TestSupport
import Transport

@Suite struct UDPSocketTests {
    @Test func exchangesDatagramsOnLoopbackWithTheirSource() throws {
        let a = try loopbackSocket()
        let b = try loopbackSocket()
        #expect(a.localEndpoint.port != 0)
        try a.setRemote(b.localEndpoint)
        let message: [UInt8] = [1, 2, 3, 4, 5]
        #expect(try a.send(message))
        let received = try #require(try b.receiveWaiting())
        #expect(received.datagram.length == 5)
        #expect(received.bytes == message)
        #expect(received.datagram.source == (try PeerAddress(a.localEndpoint)))
        #expect(received.datagram.source.endpoint == a.localEndpoint)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        #expect(try buffer.withUnsafeMutableBytes { try b.receive(into: $0) } == nil)
    }

    @Test func remoteIsReadableAndSettableFromAnAddress() throws {
        let a = try loopbackSocket()
        let b = try loopbackSocket()
        #expect(a.remote == nil)
        try a.setRemote(b.localEndpoint)
        #expect(a.remote == (try PeerAddress(b.localEndpoint)))
        let c = try loopbackSocket()
        a.setRemote(try PeerAddress(c.localEndpoint))
        #expect(a.remote?.endpoint == c.localEndpoint)
        try a.send([42])
        #expect(try c.receiveWaiting()?.bytes == [42])
        #expect(try b.receiveWaiting() == nil)
    }

    @Test func sendToGoesToTheAddressGivenNotTheRemote() throws {
        let a = try loopbackSocket()
        let remote = try loopbackSocket()
        let other = try loopbackSocket()
        try a.setRemote(remote.localEndpoint)
        #expect(try a.send([7, 8], to: PeerAddress(other.localEndpoint)))
        #expect(try other.receiveWaiting()?.bytes == [7, 8])
        #expect(try remote.receiveWaiting() == nil)
        #expect(a.remote == (try PeerAddress(remote.localEndpoint)))
    }

    /// Symmetric RTP: the answerer does not know where the caller's NAT will map it; it sends
    /// back to the source of what it received.
    @Test func repliesToTheSourceItLatched() throws {
        let caller = try loopbackSocket()
        let answerer = try loopbackSocket()
        try caller.setRemote(answerer.localEndpoint)
        try caller.send([1])
        let first = try #require(try answerer.receiveWaiting())
        answerer.setRemote(first.datagram.source)
        try answerer.send([2])
        let reply = try #require(try caller.receiveWaiting())
        #expect(reply.bytes == [2])
        #expect(reply.datagram.source == (try PeerAddress(answerer.localEndpoint)))
    }

    /// The remote changes on one thread while another sends (the control plane re-targets a
    /// call while the network thread sends): every datagram goes whole to one of the two
    /// remotes. A data race here is what ThreadSanitizer (`make test-tsan`) reports.
    @Test func remoteMayChangeWhileAnotherThreadSends() throws {
        let sender = try loopbackSocket()
        let first = try loopbackSocket(), second = try loopbackSocket()
        let addresses = [try PeerAddress(first.localEndpoint), try PeerAddress(second.localEndpoint)]
        sender.setRemote(addresses[0])
        let poller = try SocketPoller(capacity: 2)
        try poller.add(first)
        try poller.add(second)
        let switching = Thread {
            for index in 0..<2_000 { sender.setRemote(addresses[index % 2]) }
        }
        switching.start()
        var seen = Set<UInt16>()
        var buffer = [UInt8](repeating: 0, count: 16)
        for sequence in UInt16(0)..<500 {
            try sender.send([UInt8(sequence >> 8), UInt8(sequence & 0xFF)])
            var arrivals = 0
            try poller.wait(timeoutMs: 1_000) { socket in
                while let datagram = try? buffer.withUnsafeMutableBytes({ try socket.receive(into: $0) }) {
                    #expect(datagram.length == 2)
                    seen.insert(UInt16(buffer[0]) << 8 | UInt16(buffer[1]))
                    arrivals += 1
                }
            }
            #expect(arrivals == 1)
        }
        #expect(seen.count == 500)
    }

    @Test func reportsTypedErrors() throws {
        #expect(throws: SocketError(function: "inet_pton", code: .invalidArgument)) {
            try UDPSocket(bindingTo: UDPEndpoint(host: "not-an-address", port: 0))
        }
        let a = try loopbackSocket()
        let taken = #expect(throws: SocketError.self) { try UDPSocket(bindingTo: a.localEndpoint) }
        #expect(taken == SocketError(function: "bind", code: .addressInUse))
        #expect(taken?.description == "bind failed: Address already in use (EADDRINUSE = 98)")
        #expect(throws: SocketError(function: "sendto", code: .addressRequired)) { try a.send([1]) }
        #expect(throws: SocketError(function: "sendto", code: .addressFamilyNotSupported)) {
            try a.send([1], to: PeerAddress(UDPEndpoint(host: "::1", port: 9)))
        }
        let b = try loopbackSocket()
        try b.setRemote(a.localEndpoint)
        try b.send([UInt8](repeating: 7, count: 100))
        #expect(try a.receiveWaiting(capacity: 10)?.datagram.length == 100)  // truncated: reported by its length
    }

    /// Issue 16 row 1: a 3,000-byte datagram from any local sender made `receive` throw
    /// `EMSGSIZE`, which ended the call. Datagrams of any size up to UDP's largest over IPv4
    /// (65,507 bytes) are reported by their length on the wire, their first bytes are in the
    /// buffer, and the next datagram arrives intact.
    @Test(arguments: [3_000, 65_507])
    func oversizedDatagramIsReportedWithoutEndingAnything(size: Int) throws {
        let receiver = try loopbackSocket()
        let stranger = try loopbackSocket()
        try stranger.setRemote(receiver.localEndpoint)
        let oversized = (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) }
        #expect(try stranger.send(oversized))
        #expect(try stranger.send([7, 7, 7]))

        let first = try #require(try receiver.receiveWaiting(capacity: 1_500))
        #expect(first.datagram.length == size)
        #expect(first.bytes == Array(oversized[0..<1_500]))
        #expect(first.datagram.source == (try PeerAddress(stranger.localEndpoint)))
        let second = try #require(try receiver.receiveWaiting(capacity: 1_500))
        #expect(second.datagram.length == 3)
        #expect(second.bytes == [7, 7, 7])
    }

    @Test func oneThousandReceivesAllocateNothing() throws {
        let a = try loopbackSocket()
        let b = try loopbackSocket()
        try a.setRemote(b.localEndpoint)
        let expectedSource = try PeerAddress(a.localEndpoint)
        let payload = [UInt8](repeating: 1, count: 200)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        try payload.withUnsafeBytes { out in
            try buffer.withUnsafeMutableBytes { into in
                let (received, allocations) = try AllocationCounter.measure { () throws(SocketError) -> Int in
                    var received = 0
                    for _ in 0..<1_000 {
                        _ = try a.send(out)
                        _ = try b.waitForData(timeoutMs: 1_000)
                        if let datagram = try b.receive(into: into), datagram.length == 200, datagram.source == expectedSource {
                            received += 1
                        }
                    }
                    return received
                }
                #expect(received == 1_000)
                #expect(allocations == 0)
            }
        }
        if AllocationCounter.isCounting {
            #expect(AllocationCounter.measure { [Int](repeating: 0, count: 64) }.allocations > 0)
        }
    }
}
