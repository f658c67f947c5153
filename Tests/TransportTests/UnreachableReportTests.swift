// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
import Testing
import Transport

/// An ICMP "network unreachable" or "host unreachable" for one of our datagrams (a router on
/// the way had no route: a peer behind a NAT, at a private address) leaves an error pending on
/// the socket, which the next `recvfrom` reports. Like a port unreachable, it is a lost
/// datagram: `receive` goes on to the datagrams that wait, and `send` still sends. The errors
/// are forged on loopback with a raw ICMP socket, so the test needs root.
@Suite(.enabled(if: geteuid() == 0, "raw sockets need root"))
struct UnreachableReportTests {
    @Test(arguments: [(UInt8(0), "network unreachable"), (UInt8(1), "host unreachable")])
    func anICMPUnreachableIsALostDatagramNotABrokenSocket(code: UInt8, name: String) throws {
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.reportICMPErrors()
        let sender = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let router = try #require(RawICMPSocket(), "a raw ICMP socket")
        defer { router.close() }
        // What a router says about our datagram to 10.0.2.2:5004.
        router.sendUnreachable(code: code, quotingFrom: socket.localEndpoint.port, to: (0x0a00_0202, 5004))
        // Then a datagram for us: the pending error must not hide it or end the socket.
        let datagram: [UInt8] = [0x80, 0, 0, 1, 0, 0, 0, 0, 0xCA, 0xFE, 0xBA, 0xBE]
        _ = try datagram.withUnsafeBytes { try sender.send($0, to: try PeerAddress(socket.localEndpoint)) }
        var received: [Int] = []
        let deadline = Date().addingTimeInterval(5)
        try withUnsafeTemporaryAllocation(byteCount: 1_500, alignment: 8) { buffer in
            while received.isEmpty && Date() < deadline {
                _ = try socket.waitForData(timeoutMs: 100)
                while let got = try socket.receive(into: buffer) { received.append(got.length) }
            }
        }
        #expect(received == [datagram.count], "\(name)")
        // A send that meets the pending error is the datagram lost, not a throw; the next goes.
        router.sendUnreachable(code: code, quotingFrom: socket.localEndpoint.port, to: (0x0a00_0202, 5004))
        usleep(50_000)
        let peer = try PeerAddress(sender.localEndpoint)
        #expect(try datagram.withUnsafeBytes { try socket.send($0, to: peer) } == false, "\(name): the error was pending")
        #expect(try datagram.withUnsafeBytes { try socket.send($0, to: peer) } == true)
        router.sendUnreachable(code: code, quotingFrom: socket.localEndpoint.port, to: (0x0a00_0202, 5004))
        usleep(50_000)
        #expect(try datagram.withUnsafeBytes { try socket.sendNoticingRefusal($0, to: peer) } == .refused)
    }
}

/// A raw ICMP socket on 127.0.0.1 that sends "destination unreachable" errors quoting a UDP
/// datagram from 127.0.0.1:`sourcePort`, as a router on its way would.
private struct RawICMPSocket {
    let descriptor: Int32

    init?() {
        descriptor = Glibc.socket(AF_INET, Int32(SOCK_RAW.rawValue), Int32(IPPROTO_ICMP))
        if descriptor < 0 { return nil }
    }

    func close() { _ = Glibc.close(descriptor) }

    /// ICMP type 3 with `code`, quoting an IPv4 header and the UDP header of a datagram from
    /// 127.0.0.1:`sourcePort` to `destination` (address and port, host order), and 12 bytes.
    func sendUnreachable(code: UInt8, quotingFrom sourcePort: UInt16, to destination: (address: UInt32, port: UInt16)) {
        var quotedIP: [UInt8] = [0x45, 0, 0, 40, 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1]
        quotedIP += withUnsafeBytes(of: destination.address.bigEndian, Array.init)
        let ipSum = Self.checksum(quotedIP)
        quotedIP[10] = UInt8(ipSum >> 8)
        quotedIP[11] = UInt8(ipSum & 0xff)
        let udp: [UInt8] = withUnsafeBytes(of: sourcePort.bigEndian, Array.init) + withUnsafeBytes(of: destination.port.bigEndian, Array.init)
            + [0, 20, 0, 0] + [0x80, 0, 0, 2, 0, 0, 0, 0, 0xCA, 0xFE, 0xBA, 0xBE]
        var icmp: [UInt8] = [3, code, 0, 0, 0, 0, 0, 0] + quotedIP + udp
        let sum = Self.checksum(icmp)
        icmp[2] = UInt8(sum >> 8)
        icmp[3] = UInt8(sum & 0xff)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        _ = icmp.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// The Internet checksum (RFC 1071).
    static func checksum(_ bytes: [UInt8]) -> UInt16 {
        var sum: UInt32 = 0
        for index in stride(from: 0, to: bytes.count, by: 2) {
            sum += UInt32(bytes[index]) << 8 | UInt32(index + 1 < bytes.count ? bytes[index + 1] : 0)
        }
        while sum >> 16 != 0 { sum = (sum & 0xffff) + (sum >> 16) }
        return ~UInt16(sum)
    }
}
