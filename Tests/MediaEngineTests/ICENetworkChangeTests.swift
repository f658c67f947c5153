// SPDX-License-Identifier: Apache-2.0
import MediaBasics
import Foundation
@testable import MediaEngine
import MediaEngineTesting
import Testing
import TestSupport
import Transport

/// A call over ICE that survives its host moving to another address: two engines in this
/// process, each one's ICE agent in its own network namespace behind its own NAT
/// (`NATTestbed`: port-preserving NATs, STUN on the internet between). Alice's address
/// changes mid-call (as on a new DHCP lease or another Wi-Fi); the monitor tells of it, both
/// agents restart (as a re-offer and its answer make them), gathering from the addresses there
/// are now, and the call goes on under the keys it had.
@Suite(.serialized, .timeLimit(.minutes(3)),
       .enabled(if: NATTestbed.enabled, "needs root, iproute2, nftables and coturn (VOICEENGINE_REQUIRE_NETNS=1 fails instead)"))
struct ICENetworkChangeTests {
    @Test func aCallFollowsItsHostToANewAddressByAnICERestart() throws {
        let testbed = try NATTestbed(mapping: .portPreserving)
        defer { testbed.remove() }
        let server = try LoopbackTURNServer(address: NATTestbed.serverAddress, namespace: testbed.internet)
        defer { server.stop() }
        let stun = UDPEndpoint(host: NATTestbed.serverAddress, port: server.port)
        let namespaces = [testbed.alice.namespace, testbed.bob.namespace]
        // Each agent's sockets are made where its host is: gathering (and restarting) there.
        let agents = try [ICEConfiguration.Role.controlling, .controlled].enumerated().map { index, role in
            try NATTestbed.run(in: namespaces[index]) {
                var configuration = ICEConfiguration(role: role)
                configuration.stunServer = stun
                return try ICEAgent(configuration: configuration)
            }
        }
        let (aliceICE, bobICE) = (agents[0], agents[1])
        defer {
            aliceICE.close()
            bobICE.close()
        }
        func inItsNamespace(_ agent: ICEAgent, _ body: @escaping @Sendable (ICEAgent) throws -> Void) throws {
            try NATTestbed.run(in: agent === aliceICE ? namespaces[0] : namespaces[1]) { try body(agent) }
        }
        let call = try ICECallFixture(aliceICE: aliceICE, bobICE: bobICE)
        let monitor = try NATTestbed.run(in: testbed.alice.namespace) { try NetworkChangeMonitor() }
        #expect(try ICEPairing.exchange(aliceICE, bobICE) { agent in try inItsNamespace(agent) { try $0.gatherCandidates() } } != nil)
        try call.start()
        defer { call.stop() }
        call.expectKeyed()
        let deadline = MonotonicClock.nanoseconds + 90_000_000_000
        #expect(call.waitForPackets(50, deadline: deadline), "speech across the NATs before the move")

        // Alice moves: a new address, the old one gone (its sockets with it).
        // (The new address kept when the old, primary one goes.)
        try NATTestbed.ip(["netns", "exec", testbed.alice.namespace, "sysctl", "-qw", "net.ipv4.conf.eth0.promote_secondaries=1"])
        try NATTestbed.ip(["-n", testbed.alice.namespace, "addr", "add", "10.0.1.7/24", "dev", "eth0"])
        try NATTestbed.ip(["-n", testbed.alice.namespace, "addr", "del", "\(testbed.alice.address)/24", "dev", "eth0"])
        func oldAddressGone(_ change: NetworkChangeMonitor.Change) -> Bool {
            if case .addressRemoved(testbed.alice.address, _) = change { true } else { false }
        }
        var changes: [NetworkChangeMonitor.Change] = []
        let waitUntil = Date().addingTimeInterval(5)
        while !changes.contains(where: oldAddressGone) && Date() < waitUntil {
            if monitor.waitForChanges(timeoutMs: 100) { changes += monitor.takeChanges() }
        }
        #expect(changes.contains(where: oldAddressGone), "the monitor told of the old address going: \(changes)")

        // So both restart, as Alice's re-offer and Bob's answer make them.
        let restarted = try #require(try ICEPairing.restart(aliceICE, bobICE) { agent in try inItsNamespace(agent) { try $0.restart() } })
        let aliceCandidates = ICEPairing.candidates(restarted.a)
        #expect(aliceCandidates.contains { $0.contains(" 10.0.1.7 ") } && !aliceCandidates.contains { $0.contains(" \(testbed.alice.address) ") },
                "gathered from the new address: \(aliceCandidates)")
        try call.expectSpeechGoesOnAfterTheRestart(deadline: deadline)
    }
}
