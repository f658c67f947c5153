// SPDX-License-Identifier: Apache-2.0
import Testing
import Transport

/// The socket layer over `::1`: skipped (not failed) on a machine without IPv6 loopback.
@Suite(.enabled(if: IPv6Loopback.isAvailable, IPv6Loopback.skipReason))
struct IPv6LoopbackTests {
    @Test func exchangesDatagramsAndRepliesToTheirSource() throws {
        let a = try loopbackSocket("::1")
        let b = try loopbackSocket("::1")
        #expect(a.localEndpoint.host == "::1")
        try b.setRemote(a.localEndpoint)
        #expect(try b.send([9, 8, 7]))
        let first = try #require(try a.receiveWaiting())
        #expect(first.bytes == [9, 8, 7])
        #expect(first.datagram.source.endpoint == b.localEndpoint)
        #expect(first.datagram.source.description == "[::1]:\(b.localEndpoint.port)")

        #expect(try a.send([6], to: first.datagram.source))
        let reply = try #require(try b.receiveWaiting())
        #expect(reply.bytes == [6])
        #expect(reply.datagram.source == (try PeerAddress(a.localEndpoint)))
    }

    /// The same endpoint gives the same `PeerAddress` from `recvfrom` and from `init(_:)`:
    /// equal, same hash, one element of a set; and a latched source works as the remote.
    @Test func sourceFromTheSystemEqualsAddressOfTheEndpoint() throws {
        let sender = try loopbackSocket("::1")
        let receiver = try loopbackSocket("::1")
        try sender.send([1], to: PeerAddress(receiver.localEndpoint))
        let source = try #require(try receiver.receiveWaiting()?.datagram.source)
        let built = try PeerAddress(sender.localEndpoint)
        #expect(source == built)
        #expect(source.hashValue == built.hashValue)
        #expect(Set([source, built]).count == 1)
        #expect(source != (try PeerAddress(UDPEndpoint(host: "127.0.0.1", port: sender.localEndpoint.port))))

        receiver.setRemote(source)
        try receiver.send([2])
        #expect(try sender.receiveWaiting()?.bytes == [2])
    }

    @Test func marksDatagramsWithTheTrafficClassOnIPv6() throws {
        let sender = try loopbackSocket("::1")
        let receiver = try loopbackSocket("::1")
        reportTrafficClass(on: receiver)
        try sender.setRemote(receiver.localEndpoint)
        try sender.send([1])
        #expect(try receivedTrafficClass(on: receiver) == 0)
        try sender.setTrafficClass(.expeditedForwarding)
        #expect(try sender.trafficClass == .expeditedForwarding)
        try sender.send([2])
        #expect(try receivedTrafficClass(on: receiver) == 0xB8)
    }

    @Test func oversizedDatagramIsReportedByItsLength() throws {
        let receiver = try loopbackSocket("::1")
        let stranger = try loopbackSocket("::1")
        let oversized = (0..<9_000).map { UInt8(truncatingIfNeeded: $0) }
        try stranger.send(oversized, to: PeerAddress(receiver.localEndpoint))
        try stranger.send([4, 4], to: PeerAddress(receiver.localEndpoint))
        let first = try #require(try receiver.receiveWaiting(capacity: 1_500))
        #expect(first.datagram.length == 9_000)
        #expect(first.bytes == Array(oversized[0..<1_500]))
        #expect(try receiver.receiveWaiting(capacity: 1_500)?.bytes == [4, 4])
    }
}
