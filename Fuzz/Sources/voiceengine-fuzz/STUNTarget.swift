// SPDX-License-Identifier: Apache-2.0
import Glibc
import MediaEngine
import SessionDescription
import Transport

/// Datagrams at an ICE call's port: each goes through a `CallMedia`'s RFC 7983 demultiplexer
/// and then, over loopback, into a live `ICEAgent` (libnice, controlled, its peer's
/// credentials and one host candidate known, checks under way), which parses it as STUN or
/// takes it as data. Datagrams may be steered into STUN's shape — the magic cookie, a
/// consistent length, a USERNAME naming the agent, a FINGERPRINT that verifies — so libnice's
/// message validation and its connectivity-check handling are reached, not only its first
/// check. Invariants: nothing traps; the demultiplexer calls every datagram whose first byte
/// is 0…3 STUN; the agent keeps reading (its socket drains within a second of each input);
/// it never connects (no input can carry the MESSAGE-INTEGRITY of its password, nor answer
/// its checks' transaction ids); it never hands up a datagram that was STUN, nor more data
/// than was sent.
enum STUNTarget {
    static let target = FuzzTarget(name: "stun", run: run, seeds: seeds)

    /// The agent, the socket that plays its peer, and the call's demultiplexer: made once (an
    /// agent per input would be libnice's start-up, not its parsing).
    final class Rig: @unchecked Sendable {
        let agent: ICEAgent
        let peer: UDPSocket
        let agentAddress: PeerAddress
        let agentPort: UInt16
        let call: CallMedia
        var dataSent = 0
        var dataDelivered = 0

        init() {
            do {
                var configuration = ICEConfiguration(role: .controlled)
                configuration.localAddresses = ["127.0.0.1"]
                agent = try ICEAgent(configuration: configuration)
                try agent.gatherCandidates()
                var port: UInt16?
                var done = false
                for _ in 0..<500 where !done {
                    for event in agent.takeEvents() {
                        if case let .localCandidate(line) = event, let candidate = try? ICECandidate(parsing: line) { port = UInt16(candidate.port) }
                        if case .gatheringDone = event { done = true }
                    }
                    usleep(10_000)
                }
                guard let port else { fatalError("the agent gathered no host candidate on 127.0.0.1") }
                agentPort = port
                agentAddress = try PeerAddress(UDPEndpoint(host: "127.0.0.1", port: port))
                peer = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
                try agent.setRemoteCredentials(usernameFragment: STUNTarget.peerFragment, password: "fuzzpeerpassword0123456789")
                try agent.addRemoteCandidate("1 1 UDP 2130706431 127.0.0.1 \(peer.localEndpoint.port) typ host")
                call = try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake, ssrc: 0x0506_0708)
            } catch {
                fatalError("the STUN target's rig: \(error)")
            }
        }
    }

    static let peerFragment = "fzpr"
    nonisolated(unsafe) static var rig: Rig?

    static func run(_ bytes: UnsafeRawBufferPointer) {
        if rig == nil { rig = Rig() }
        let rig = rig!
        var input = FuzzInput(bytes)
        let localFragment = rig.agent.localCredentials.usernameFragment
        var sent = 0
        var wire = [UInt8](repeating: 0, count: 1_600)
        while !input.isAtEnd && sent < 64 {
            let steer = input.byte()
            let raw = input.bytes(maximum: 1_200)
            var datagram = Array(raw)
            if steer & 1 == 1 {
                datagram = shapeAsSTUN(body: datagram, type: steer >> 3, username: steer & 2 == 2 ? "\(localFragment):\(peerFragment)" : nil,
                                       fingerprint: steer & 4 == 4)
            }
            let length = min(datagram.count, wire.count)
            wire.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: datagram.withUnsafeBytes { $0 }[0..<length])) }
            let disposition = wire.withUnsafeMutableBytes {
                rig.call.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: $0[0..<length]), arrivalTimeMs: 0)
            }
            let isSTUN = length > 0 && wire[0] <= 3
            if isSTUN { check(disposition == .multiplexed(.stun), "a datagram starting \(wire[0]) was not handed back as STUN: \(disposition)") }
            if !isSTUN && length > 0 { rig.dataSent += 1 }
            _ = try? wire.withUnsafeBytes { try rig.peer.send(UnsafeRawBufferPointer(rebasing: $0[0..<length]), to: rig.agentAddress) }
            sent += 1
        }
        // Whatever the agent sends back (its checks, error responses) is read and forgotten.
        var scratch = [UInt8](repeating: 0, count: 2_048)
        check(waitUntilDrained(rig.agentPort), "the agent stopped reading its socket")
        scratch.withUnsafeMutableBytes { buffer in
            while (try? rig.peer.receive(into: buffer)) ?? nil != nil {}
        }
        rig.agent.receive { datagram in
            rig.dataDelivered += 1
            check(datagram.first.map { $0 > 3 } ?? true, "the agent handed up a STUN message as data")
        }
        check(rig.dataDelivered <= rig.dataSent, "the agent handed up \(rig.dataDelivered) datagrams of data; \(rig.dataSent) were sent")
        for event in rig.agent.takeEvents() {
            if case .selectedPair = event { check(false, "the agent selected a pair from forged checks") }
            if case let .stateChanged(state) = event {
                check(state != .connected && state != .completed, "the agent connected on forged checks")
            }
        }
    }

    /// `body` as a STUN message (RFC 8489 §5): type (the class and method from `type`: a
    /// Binding request, indication, success or error, or another method), the length of what
    /// follows the header, the magic cookie, a transaction id from the body's first 12 bytes;
    /// then a USERNAME, the body's bytes as attributes (padded to 4), and a FINGERPRINT over it all.
    static func shapeAsSTUN(body: [UInt8], type: UInt8, username: String?, fingerprint: Bool) -> [UInt8] {
        let types: [UInt16] = [0x0001, 0x0011, 0x0101, 0x0111, 0x0003, 0x0008, 0x0009, 0x0004]
        let messageType = types[Int(type) % types.count]
        var transaction = Array(body.prefix(12))
        transaction += [UInt8](repeating: 0x5A, count: 12 - transaction.count)
        var attributes: [UInt8] = []
        if let username {
            attributes += attribute(0x0006, Array(username.utf8))
        }
        var rest = Array(body.dropFirst(12))
        rest += [UInt8](repeating: 0, count: (4 - rest.count % 4) % 4)
        attributes += rest
        var message = header(type: messageType, length: attributes.count + (fingerprint ? 8 : 0), transaction: transaction) + attributes
        if fingerprint {
            let crc = CRC32.checksum(message) ^ 0x5354_554E
            message += attribute(0x8028, withUnsafeBytes(of: crc.bigEndian, Array.init))
        }
        return message
    }

    static func header(type: UInt16, length: Int, transaction: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: type.bigEndian, Array.init) + withUnsafeBytes(of: UInt16(truncatingIfNeeded: length).bigEndian, Array.init)
            + [0x21, 0x12, 0xA4, 0x42] + transaction
    }

    static func attribute(_ type: UInt16, _ value: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: type.bigEndian, Array.init) + withUnsafeBytes(of: UInt16(value.count).bigEndian, Array.init)
            + value + [UInt8](repeating: 0, count: (4 - value.count % 4) % 4)
    }

    /// Waits (up to a second) until the agent's socket has nothing queued (`/proc/net/udp`'s
    /// rx_queue for its port): libnice has read every datagram of the input.
    static func waitUntilDrained(_ port: UInt16) -> Bool {
        let local = String(format: "0100007F:%04X", port)
        for _ in 0..<1_000 {
            guard let table = try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8) else { return true }
            guard let line = table.split(separator: "\n").first(where: { $0.split(separator: " ").dropFirst().first == Substring(local) }) else { return true }
            // Columns: sl local rem st tx_queue:rx_queue …
            let queues = line.split(separator: " ").dropFirst(4).first ?? ""
            if queues.hasSuffix(":00000000") { return true }
            usleep(1_000)
        }
        return false
    }

    /// A Binding request with USERNAME and FINGERPRINT (wrong integrity: none), one with a
    /// body of attributes, a success response, and plain data.
    static func seeds() throws -> [[UInt8]] {
        let transaction: [UInt8] = Array(0..<12)
        let priority: [UInt8] = [0x00, 0x24, 0x00, 0x04, 0x6E, 0x7F, 0x1E, 0xFF]
        let controlling: [UInt8] = [0x80, 0x2A, 0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8]
        func program(_ steer: UInt8, _ body: [UInt8]) -> [UInt8] {
            [steer] + withUnsafeBytes(of: UInt16(body.count).bigEndian, Array.init) + body
        }
        return [
            program(0b0000_0111, transaction + priority + controlling),
            program(0b0000_0101, transaction + [0x00, 0x08, 0x00, 0x14] + [UInt8](repeating: 0xAB, count: 20)),
            program(0b0001_0101, transaction + [0x00, 0x20, 0x00, 0x08, 0x00, 0x01, 0x05, 0x06, 0x7E, 0x00, 0x00, 0x01]),
            program(0b0000_0000, [0x80, 111, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xFF]),
        ]
    }
}

/// CRC-32 (ISO-HDLC, as zlib computes it): STUN's FINGERPRINT.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
