// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import voicecall

/// `voicecall call` between two hosts behind two NATs (`NATTestbed`: network namespaces, veth
/// links and nftables masquerades the test makes as root and deletes after), with coturn
/// serving STUN and TURN on the "internet" between them. With ICE the hosts meet through
/// their reflexive addresses (port-preserving NATs) or through the relay (NATs that map every
/// destination to a new port); without ICE each side sends to an address it cannot reach and
/// the call ends as unreachable, saying so.
@Suite(.serialized, .enabled(if: NATTestbed.enabled, "needs root, iproute2, nftables and coturn (scripts/install-deps --test --aiortc --nat; VOICEENGINE_REQUIRE_NETNS=1 fails instead)"))
struct VoiceCallNATTests {
    let voicecall = VoiceCallProcess.executable

    /// A call with `options` between the testbed's two hosts, each listening on every address
    /// of its namespace; both must hear each other. Returns each side's selected-pair line.
    func callAcross(_ testbed: NATTestbed, options: [String], label: String) throws -> (alice: String, bob: String) {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let call = try RealCallSupport.callBothWays(voicecall, options: options, in: directory, timeoutSeconds: 40,
                                                    alice: .init(namespace: testbed.alice.namespace, listen: "0.0.0.0:0"),
                                                    bob: .init(namespace: testbed.bob.namespace, listen: "0.0.0.0:0"))
        RealCallSupport.expectHeardBothWays(call, label)
        // Nobody's private address can carry the call: the default candidate in each SDP is
        // one the other side can reach.
        for end in [call.alice, call.bob] {
            #expect(end.standardError.contains("DTLS-SRTP connected"), "\(end.standardError)")
        }
        let pair = { (end: (status: Int32, standardError: String)) throws -> String in
            try #require(end.standardError.split(separator: "\n").first { $0.contains("ICE: selected pair") }.map(String.init), "\(end.standardError)")
        }
        return (try pair(call.alice), try pair(call.bob))
    }

    /// Port-preserving NATs and a STUN server: each side learns its NAT's public address, the
    /// checks open both NATs, and the pair joins the two public addresses — no relay.
    @Test func callsAcrossTwoNATsThroughSTUN() throws {
        let testbed = try NATTestbed(mapping: .portPreserving)
        defer { testbed.remove() }
        let server = try LoopbackTURNServer(address: NATTestbed.serverAddress, namespace: testbed.internet)
        defer { server.stop() }
        let pairs = try callAcross(testbed, options: ["--ice", "--dtls", "--stun", "\(NATTestbed.serverAddress):\(server.port)"],
                                   label: "voicecall call --ice --stun across two NATs ⇄")
        print("NAT, STUN: alice \(pairs.alice); bob \(pairs.bob)")
        // What each side sends to is the other's NAT's public address.
        #expect(pairs.alice.contains(testbed.bob.publicAddress), "\(pairs.alice)")
        #expect(pairs.bob.contains(testbed.alice.publicAddress), "\(pairs.bob)")
        #expect(!pairs.alice.contains("relay") && !pairs.bob.contains("relay"))
    }

    /// NATs that give every destination a new port (symmetric): a reflexive address works for
    /// the STUN server only, and the call goes through the TURN relay.
    @Test func callsAcrossTwoSymmetricNATsThroughTURN() throws {
        let testbed = try NATTestbed(mapping: .randomPorts)
        defer { testbed.remove() }
        let server = try LoopbackTURNServer(address: NATTestbed.serverAddress, namespace: testbed.internet)
        defer { server.stop() }
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pairs = try callAcross(testbed, options: ["--ice", "--dtls", "--stun", "\(NATTestbed.serverAddress):\(server.port)"]
                                       + server.arguments(passwordFileIn: directory),
                                   label: "voicecall call --ice --turn across two symmetric NATs ⇄")
        print("NAT, TURN: alice \(pairs.alice); bob \(pairs.bob)")
        // At least one end of the pair is the relay (on the server's address).
        #expect(pairs.alice.contains(NATTestbed.serverAddress) && pairs.bob.contains(NATTestbed.serverAddress), "\(pairs)")
    }

    /// The same hosts without ICE: each SDP carries a private address the other side cannot
    /// reach; what each sends vanishes on the internet, and both sides end with exit 6 saying
    /// the peer is unreachable, once the give-up time (4 s) has passed without media — well
    /// within a minute, however loaded the machine: neither side hangs.
    @Test func withoutICETheCallFailsAsUnreachable() throws {
        let testbed = try NATTestbed(mapping: .portPreserving)
        defer { testbed.remove() }
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (aliceIn, _) = try RealCallSupport.speech(seconds: 2, from: 1, in: directory, name: "alice.wav")
        let (bobIn, _) = try RealCallSupport.speech(seconds: 2, from: 4, in: directory, name: "bob.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        let started = Date()
        let alice = try RealCallSupport.CallSide(namespace: testbed.alice.namespace, listen: "\(testbed.alice.address):0")
            .start(voicecall, ["call", "--listen", "\(testbed.alice.address):0", "--input", aliceIn.path, "--give-up", "4",
                               "--output", directory.appendingPathComponent("a.wav").path, "--offer-out", offer, "--answer-in", answer])
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: offer) && alice.process.isRunning && Date() < deadline { usleep(20_000) }
        let bob = try RealCallSupport.CallSide(namespace: testbed.bob.namespace, listen: "\(testbed.bob.address):0")
            .start(voicecall, ["call", "--listen", "\(testbed.bob.address):0", "--input", bobIn.path, "--give-up", "4",
                               "--output", directory.appendingPathComponent("b.wav").path, "--sdp", offer, "--answer-out", answer])
        let bobEnd = bob.wait(timeoutSeconds: 90)
        let aliceEnd = alice.wait(timeoutSeconds: 90)
        let seconds = Date().timeIntervalSince(started)
        print("NAT, no ICE: alice: \(aliceEnd.standardError.split(separator: "\n").last ?? ""); bob: \(bobEnd.standardError.split(separator: "\n").last ?? "")")
        for (name, end) in [("alice", aliceEnd), ("bob", bobEnd)] {
            #expect(end.status == RealCallFailure.unreachable("").exitStatus, "\(name): \(end.status) \(end.standardError)")
            #expect(end.standardError.contains("peer unreachable"), "\(name): \(end.standardError)")
        }
        #expect(bobEnd.standardError.contains("\(testbed.alice.address) is a private address"), "\(bobEnd.standardError)")
        #expect(aliceEnd.standardError.contains("\(testbed.bob.address) is a private address"), "\(aliceEnd.standardError)")
        #expect(aliceEnd.standardError.contains("run both sides with --ice"), "\(aliceEnd.standardError)")
        #expect(seconds < 60, "took \(seconds) s")
    }
}
