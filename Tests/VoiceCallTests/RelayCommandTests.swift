// SPDX-License-Identifier: Apache-2.0
import Foundation
import NetworkSimulation
import Testing
import TestSupport
import Transport
@testable import voicecall

/// `voicecall relay` refuses what it cannot run, before opening anything.
@Suite struct RelayOptionTests {
    @Test(arguments: [
        (["relay", "--to", "127.0.0.1:9"], "--listen"),
        (["relay", "--listen", "127.0.0.1:0"], "--to"),
        (["relay", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--network", "random:500"], "network name"),
        (["relay", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--network", "carrier-pigeon"], "network name"),
        (["relay", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--network", "A", "--trace", "x.csv"], "exclude"),
        (["relay", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--ptime", "25"], "--ptime"),
        (["relay", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--trace", "/nonexistent/trace.csv"], "--trace"),
        (["relay", "--listen", "localhost:5000", "--to", "127.0.0.1:9"], "numeric"),
    ])
    func aBadCommandLineIsRefusedWithItsReason(arguments: [String], reason: String) throws {
        let run = try VoiceCallProcess.run(arguments)
        #expect(run.exited && run.status == 1, "\(run.standardError)")
        #expect(run.standardError.contains(reason), "\(run.standardError)")
    }

    /// An RTP packet's index counts its sequence number from the first one, across wrap-around
    /// and reordering; RTCP and anything not RTP has none.
    @Test func rtpPacketsAreIndexedBySequenceAcrossWrapAround() {
        var index = RTPStreamIndex()
        func packet(_ sequence: Int, type: UInt8 = 96) -> [UInt8] {
            [0x80, type, UInt8(sequence >> 8 & 0xFF), UInt8(sequence & 0xFF)] + [UInt8](repeating: 0, count: 8)
        }
        func of(_ bytes: [UInt8]) -> Int? { bytes.withUnsafeBytes { index.index(of: $0) } }
        #expect(of(packet(65_534)) == 0)
        #expect(of(packet(65_535)) == 1)
        #expect(of(packet(1)) == 3, "past the wrap")
        #expect(of(packet(0)) == 2, "reordered across the wrap")
        #expect(of(packet(2)) == 4)
        #expect(of(packet(7, type: 200)) == nil, "RTCP sender report")
        #expect(of(packet(7, type: 0xC9)) == nil, "RTCP receiver report")
        #expect(of([0x00, 96, 0, 9] + [UInt8](repeating: 0, count: 8)) == nil, "not version 2")
        #expect(of([0x80, 96, 0]) == nil, "too short")
    }
}

/// `voicecall relay` between two sockets of the test: the same seed loses and delays the same
/// packets however they are paced, and replies find their way back.
@Suite struct RelayCommandTests {
    static let packetCount = 150
    static let firstSequence = 65_480

    static func rtp(_ index: Int) -> [UInt8] {
        let sequence = (firstSequence + index) & 0xFFFF
        return [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 0, 0xA1, 0x1C, 0xE0, 0x00]
            + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 40)
    }

    /// Sends the stream through a relay of `random:30`, seed 7, pausing `gapMs` between packets
    /// (every `groupSize` packets); returns the indices Bob received and what the relay said.
    static func relayRun(gapMs: Int, groupSize: Int) throws -> (received: Set<Int>, reply: Bool, log: String) {
        let bob = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let relay = try BackgroundProcess(VoiceCallProcess.executable,
                                          ["relay", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:\(bob.localEndpoint.port)",
                                           "--network", "random:30", "--seed", "7", "--seconds", "3", "--one-way"])
        let port = try RealCallSupport.listeningPort(of: relay)
        let alice = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try alice.setRemote(UDPEndpoint(host: "127.0.0.1", port: port))
        for index in 0..<packetCount {
            _ = try rtp(index).withUnsafeBytes { try alice.send($0) }
            if (index + 1) % groupSize == 0 { usleep(UInt32(gapMs * 1_000)) }
        }
        var received = Set<Int>(), replied = false
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 8)
        defer { buffer.deallocate() }
        let deadline = Date().addingTimeInterval(30)
        while relay.process.isRunning && Date() < deadline {
            guard try bob.waitForData(timeoutMs: 50) else { continue }
            while let datagram = try bob.receive(into: buffer) {
                received.insert(Int(buffer[12]))
                if !replied {
                    _ = try [0x80, 111, 0, 0, 0, 0, 0, 0, 0xB0, 0xB0, 0, 0].withUnsafeBytes { try bob.send($0, to: datagram.source) }
                    replied = true
                }
            }
        }
        let ended = relay.wait(timeoutSeconds: 30)
        #expect(ended.status == 0, "\(ended.standardError)")
        let reply = try alice.waitForData(timeoutMs: 2_000) && (try alice.receive(into: buffer)) != nil
        return (received, reply, ended.standardError)
    }

    @Test func theSameSeedDropsTheSamePacketsHoweverTheyArePaced() throws {
        var path = SimulatedNetworkPath(profile: NetworkCatalog.randomLoss(percent: 30), seconds: 3, ptimeMs: 20, seed: 7)
        let expected = Set((0..<Self.packetCount).filter { path.fate(sendMs: 0, index: $0) != nil })
        #expect(expected.count > 80 && expected.count < 130, "30 % lost of \(Self.packetCount): \(expected.count) kept")

        let paced = try Self.relayRun(gapMs: 2, groupSize: 1)
        let bunched = try Self.relayRun(gapMs: 15, groupSize: 10)
        #expect(paced.received == expected, "paced: \(paced.received.symmetricDifference(expected).sorted())")
        #expect(bunched.received == expected, "bunched: \(bunched.received.symmetricDifference(expected).sorted())")
        #expect(paced.reply && bunched.reply, "Bob's reply reached Alice through the relay")
        let dropped = Self.packetCount - expected.count
        #expect(paced.log.contains("forward: received \(Self.packetCount), dropped \(dropped), forwarded \(expected.count)"), "\(paced.log)")
        #expect(paced.log.contains("replies: received 1, dropped 0, forwarded 1"), "\(paced.log)")
    }
}
