// SPDX-License-Identifier: Apache-2.0
import Foundation
import Glibc
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
    /// The relay's lifetime, s (`--seconds`: also how long its network is drawn for); a test
    /// ends it sooner.
    static let relaySeconds = 60

    static func rtp(_ index: Int) -> [UInt8] {
        let sequence = (firstSequence + index) & 0xFFFF
        return [0x80, 111, UInt8(sequence >> 8), UInt8(sequence & 0xFF), 0, 0, 0, 0, 0xA1, 0x1C, 0xE0, 0x00]
            + [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 40)
    }

    /// Sends the stream through a relay of `random:30`, seed 7, pausing `gapMs` between packets
    /// (every `groupSize` packets); returns the indices Bob received and what the relay said.
    ///
    /// The relay is given a minute (a bound should the test die, not its run time) and is ended
    /// with Ctrl-C (SIGINT, on which it stops and reports) once Bob holds `expectedCount`
    /// packets and Bob's reply reached Alice: a loaded machine takes what time it takes. The
    /// stream's last packet is among those kept, so Bob holding them all means the relay read
    /// every packet Alice sent (one socket, in order) before it is told to stop. It is spawned
    /// with the signals unblocked (`SpawnedVoiceCall`: the test runner's threads block them),
    /// its standard error in a file read as it comes.
    static func relayRun(gapMs: Int, groupSize: Int, expectedCount: Int) throws -> (received: Set<Int>, reply: Bool, log: String) {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logPath = directory.appendingPathComponent("relay.log").path
        let logFile = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard logFile >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        let bob = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let relay: SpawnedVoiceCall
        do {
            defer { close(logFile) }
            relay = try SpawnedVoiceCall(["relay", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:\(bob.localEndpoint.port)",
                                          "--network", "random:30", "--seed", "7", "--seconds", "\(relaySeconds)", "--one-way"],
                                         error: .descriptor(logFile))
        }
        // Its "listening on 127.0.0.1:PORT, …" line: once written, the socket is bound.
        let listening = Date().addingTimeInterval(60)
        while !log().contains("listening on") && !relay.hasExited() && Date() < listening { usleep(5_000) }
        let line = try #require(log().split(separator: "\n").first { $0.contains("listening on") }, "no listening line: \(log())")
        let address = try #require(line.split(separator: "listening on ").last?.split(separator: ",").first, "\(line)")
        let port = try #require(address.split(separator: ":").last.flatMap { UInt16($0) }, "\(line)")
        let alice = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try alice.setRemote(UDPEndpoint(host: "127.0.0.1", port: port))
        for index in 0..<packetCount {
            _ = try rtp(index).withUnsafeBytes { try alice.send($0) }
            if (index + 1) % groupSize == 0 { usleep(UInt32(gapMs * 1_000)) }
        }
        var received = Set<Int>(), replied = false
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 8)
        defer { buffer.deallocate() }
        // The bound is for a stuck relay; the loop ends as soon as Bob has the packets.
        let deadline = Date().addingTimeInterval(50)
        while received.count < expectedCount && !relay.hasExited() && Date() < deadline {
            guard try bob.waitForData(timeoutMs: 50) else { continue }
            while let datagram = try bob.receive(into: buffer) {
                received.insert(Int(buffer[12]))
                if !replied {
                    _ = try [0x80, 111, 0, 0, 0, 0, 0, 0, 0xB0, 0xB0, 0, 0].withUnsafeBytes { try bob.send($0, to: datagram.source) }
                    replied = true
                }
            }
        }
        let reply = try alice.waitForData(timeoutMs: 30_000) && (try alice.receive(into: buffer)) != nil
        // Anything the relay sends Bob after the last expected packet would be too many: its
        // report counts what it forwarded.
        if !relay.hasExited() { kill(relay.pid, SIGINT) }
        let ended = relay.wait(timeoutSeconds: 30)
        #expect(ended.exited && ended.status == 0, "\(log())")
        return (received, reply, log())
    }

    @Test func theSameSeedDropsTheSamePacketsHoweverTheyArePaced() throws {
        var path = SimulatedNetworkPath(profile: NetworkCatalog.randomLoss(percent: 30), seconds: Double(Self.relaySeconds), ptimeMs: 20, seed: 7)
        let expected = Set((0..<Self.packetCount).filter { path.fate(sendMs: 0, index: $0) != nil })
        #expect(expected.count > 80 && expected.count < 130, "30 % lost of \(Self.packetCount): \(expected.count) kept")

        try #require(expected.contains(Self.packetCount - 1), "the stream's last packet is kept (relayRun waits for it)")

        let paced = try Self.relayRun(gapMs: 2, groupSize: 1, expectedCount: expected.count)
        let bunched = try Self.relayRun(gapMs: 15, groupSize: 10, expectedCount: expected.count)
        #expect(paced.received == expected, "paced: \(paced.received.symmetricDifference(expected).sorted())")
        #expect(bunched.received == expected, "bunched: \(bunched.received.symmetricDifference(expected).sorted())")
        #expect(paced.reply && bunched.reply, "Bob's reply reached Alice through the relay")
        let dropped = Self.packetCount - expected.count
        #expect(paced.log.contains("forward: received \(Self.packetCount), dropped \(dropped), forwarded \(expected.count)"), "\(paced.log)")
        #expect(paced.log.contains("replies: received 1, dropped 0, forwarded 1"), "\(paced.log)")
    }
}
