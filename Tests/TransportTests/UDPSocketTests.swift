import SystemErrors
import Testing
import TestSupport
import Transport

@Suite struct UDPSocketTests {
    @Test func exchangesDatagramsOnLoopback() throws {
        let a = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let b = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        #expect(a.localEndpoint.port != 0)
        try a.setRemote(b.localEndpoint)
        let message: [UInt8] = [1, 2, 3, 4, 5]
        #expect(try message.withUnsafeBytes { try a.send($0) })
        #expect(try b.waitForData(timeoutMs: 1_000))
        var buffer = [UInt8](repeating: 0, count: 1_500)
        let length = try buffer.withUnsafeMutableBytes { try b.receive(into: $0) }
        #expect(length == 5)
        #expect(Array(buffer[0..<5]) == message)
        #expect(try buffer.withUnsafeMutableBytes { try b.receive(into: $0) } == nil)
    }

    @Test func worksOverIPv6Loopback() throws {
        guard let a = try? UDPSocket(bindingTo: UDPEndpoint(host: "::1", port: 0)) else { return }  // no IPv6 on this host
        let b = try UDPSocket(bindingTo: UDPEndpoint(host: "::1", port: 0))
        try b.setRemote(a.localEndpoint)
        #expect(a.localEndpoint.host == "::1")
        try [9].withUnsafeBytes { _ = try b.send($0) }
        #expect(try a.waitForData(timeoutMs: 1_000))
    }

    @Test func reportsTypedErrors() throws {
        #expect(throws: SocketError(function: "inet_pton", code: .invalidArgument)) {
            try UDPSocket(bindingTo: UDPEndpoint(host: "not-an-address", port: 0))
        }
        let a = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let taken = #expect(throws: SocketError.self) { try UDPSocket(bindingTo: a.localEndpoint) }
        #expect(taken == SocketError(function: "bind", code: .addressInUse))
        #expect(taken?.description == "bind failed: Address already in use (EADDRINUSE = 98)")
        #expect(throws: SocketError(function: "sendto", code: .addressRequired)) { try [1].withUnsafeBytes { _ = try a.send($0) } }
        let b = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try b.setRemote(a.localEndpoint)
        try [UInt8](repeating: 7, count: 100).withUnsafeBytes { _ = try b.send($0) }
        #expect(try a.waitForData(timeoutMs: 1_000))
        var small = [UInt8](repeating: 0, count: 10)
        #expect(try small.withUnsafeMutableBytes { try a.receive(into: $0) } == 100)  // truncated: reported by its length
    }

    /// Issue 16 row 1: a 3,000-byte datagram from any local sender made `receive` throw
    /// `EMSGSIZE`, which ended the call. It is now reported by its length on the wire (more
    /// than the buffer holds), its first bytes are in the buffer, and the socket goes on
    /// receiving.
    @Test func oversizedDatagramIsReportedWithoutEndingAnything() throws {
        let receiver = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let stranger = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try stranger.setRemote(receiver.localEndpoint)
        let oversized = (0..<3_000).map { UInt8(truncatingIfNeeded: $0) }
        try oversized.withUnsafeBytes { _ = try stranger.send($0) }
        try [UInt8]([7, 7, 7]).withUnsafeBytes { _ = try stranger.send($0) }
        #expect(try receiver.waitForData(timeoutMs: 1_000))

        var buffer = [UInt8](repeating: 0, count: 1_500)
        let first = try buffer.withUnsafeMutableBytes { try receiver.receive(into: $0) }
        #expect(first == 3_000)
        #expect(buffer == Array(oversized[0..<1_500]))
        #expect(try receiver.waitForData(timeoutMs: 1_000))
        let second = try buffer.withUnsafeMutableBytes { try receiver.receive(into: $0) }
        #expect(second == 3)
        #expect(Array(buffer[0..<3]) == [7, 7, 7])
    }

    @Test func sendAndReceiveAllocateNothing() throws {
        let a = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let b = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try a.setRemote(b.localEndpoint)
        let payload = [UInt8](repeating: 1, count: 200)
        var buffer = [UInt8](repeating: 0, count: 1_500)
        try payload.withUnsafeBytes { out in
            try buffer.withUnsafeMutableBytes { into in
                let (received, allocations) = try AllocationCounter.measure { () throws(SocketError) -> Int in
                    var received = 0
                    for _ in 0..<100 {
                        _ = try a.send(out)
                        _ = try b.waitForData(timeoutMs: 1_000)
                        if try b.receive(into: into) != nil { received += 1 }
                    }
                    return received
                }
                #expect(received == 100)
                #expect(allocations == 0)
            }
        }
    }
}
