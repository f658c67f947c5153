// SPDX-License-Identifier: Apache-2.0
import Glibc
import Testing
import Transport

/// `voicecall send`'s "peer unreachable": a datagram to a port nobody listens on comes back
/// as ICMP port unreachable, which Linux reports on an unconnected socket only with
/// `IP_RECVERR` (`reportICMPErrors()`), queued until `takeRefusals()` takes it.
@Suite struct RefusalTests {
    /// A port on 127.0.0.1 nothing listens on: bound by a socket that is then closed.
    func closedPort() throws -> UDPEndpoint {
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        return socket.localEndpoint
    }

    @Test func refusalsAreCountedWhenReported() throws {
        let destination = try PeerAddress(try closedPort())
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.reportICMPErrors()
        let payload: [UInt8] = [0x80, 0, 0, 1]
        var refused = 0
        for _ in 0..<3 {
            let outcome = try payload.withUnsafeBytes { try socket.sendNoticingRefusal($0, to: destination) }
            if outcome == .refused { refused += 1 }
            // Loopback delivers the ICMP error before poll returns: wait on the socket as the
            // call loop does, then take the queued errors.
            _ = try socket.waitForData(timeoutMs: 200)
            refused += socket.takeRefusals()
        }
        #expect(refused >= 3)
        // Taken: nothing stays queued, so poll no longer reports the socket ready.
        #expect(try socket.waitForData(timeoutMs: 0) == false)
    }

    @Test func withoutReportingNoRefusalIsSeen() throws {
        let destination = try PeerAddress(try closedPort())
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let payload: [UInt8] = [0x80, 0, 0, 1]
        for _ in 0..<3 {
            #expect(try payload.withUnsafeBytes { try socket.sendNoticingRefusal($0, to: destination) } == .sent)
            _ = try socket.waitForData(timeoutMs: 20)
            #expect(socket.takeRefusals() == 0)
        }
    }

    @Test func aListeningPeerIsNotRefused() throws {
        let peer = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.reportICMPErrors()
        let payload: [UInt8] = [0x80, 0, 0, 1]
        for _ in 0..<3 {
            #expect(try payload.withUnsafeBytes { try socket.sendNoticingRefusal($0, to: PeerAddress(peer.localEndpoint)) } == .sent)
        }
        #expect(try peer.waitForData(timeoutMs: 1_000))
        #expect(socket.takeRefusals() == 0)
    }
}
