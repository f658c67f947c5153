// SPDX-License-Identifier: Apache-2.0
import AudioDevices
@testable import CallCore
@testable import MediaEngine
import MediaEngineTesting
import SRTP
import Testing
import TestSupport
import Transport

/// Issue 25: calls carried by ICE (libnice) and keyed by DTLS-SRTP between two engines on
/// loopback: candidates and credentials exchanged, the pair selected, the handshake over it,
/// speech both ways; the engine posts the agent's events.
@Suite(.timeLimit(.minutes(3))) struct ICECallTests {
    static func agent(_ role: ICEConfiguration.Role) throws -> ICEAgent {
        var configuration = ICEConfiguration(role: role)
        configuration.localAddresses = ["127.0.0.1"]
        return try ICEAgent(configuration: configuration)
    }

    @Test func aCallOverICEKeyedByDTLSCarriesSpeechBothWays() throws {
        let aliceICE = try Self.agent(.controlling), bobICE = try Self.agent(.controlled)
        defer {
            aliceICE.close()
            bobICE.close()
        }
        let call = try ICECallFixture(aliceICE: aliceICE, bobICE: bobICE)
        let (alice, bob, aliceEvents) = (call.alice, call.bob, call.aliceEvents)
        let aliceID = alice.engine.callIDs[0]
        #expect(try ICEPairing.exchange(aliceICE, bobICE) != nil)
        // Bob's audio cycles allocate nothing with ICE on: libnice runs on its own thread,
        // its datagrams are taken on the network thread.
        let probe = CycleAllocationProbe(bob.engine)
        try call.start()
        call.expectKeyed()
        let deadline = MonotonicClock.nanoseconds + 90_000_000_000
        while DTLSCallTests.received(bob) < 75 && MonotonicClock.nanoseconds < deadline { VoiceEngineTests.sleep(seconds: 0.02) }
        probe.arm()
        _ = call.waitForPackets(150, deadline: deadline)
        call.stop()
        CycleAllocationProbe.detach(bob.engine)
        if AllocationCounter.isCounting {
            #expect(probe.measured > 30)
            #expect(probe.worst == 0, "an audio cycle allocated \(probe.worst) times with ICE on")
        }
        for party in [alice, bob] {
            let statistics = try #require(party.engine.statistics(of: party.engine.callIDs[0]))
            #expect(statistics.inbound.packetsReceived >= 150, "\(statistics.inbound)")
            #expect(statistics.transport.srtp.authFailures == 0)
            #expect(statistics.transport.unknownProtocolDatagrams == 0, "libnice keeps STUN to itself")
        }
        if AllocationCounter.isCounting {
            // From the first frame Alice sent: those before the checks and the handshake were
            // never on the wire.
            let discarded = try #require(alice.engine.statistics(of: aliceID)).transport.srtp.discardedBeforeKeys
            let correlation = CallOverNetworkTests.qualityFromFirstSentFrame(VoiceEngineTests.alice, discardedBeforeKeys: discarded, heard: bob.heard)
            #expect(correlation > 0.6, "Bob heard Alice with correlation \(correlation)")
        }
        // The engine posted the connection's progress; the agent's own events stayed for us.
        #expect(aliceEvents.all.contains { $0 == .iceStateChanged(aliceID, .connected) || $0 == .iceStateChanged(aliceID, .completed) },
                "\(aliceEvents.all)")
        #expect(aliceICE.takeEvents().contains { if case .selectedPair = $0 { true } else { false } })
        #expect(alice.socket.localEndpoint.port > 0, "the party's own socket is unused: ICE carries the call")
    }

    /// An ICE restart in the middle of a call (both sides, as a re-offer with new credentials
    /// and its answer make it): new credentials, checks again, a pair selected again, and the
    /// call goes on under the keys it had — no second handshake, nothing failing to
    /// authenticate, speech flowing after it.
    @Test func anICERestartKeepsTheCallAndItsKeys() throws {
        let aliceICE = try Self.agent(.controlling), bobICE = try Self.agent(.controlled)
        defer {
            aliceICE.close()
            bobICE.close()
        }
        let call = try ICECallFixture(aliceICE: aliceICE, bobICE: bobICE)
        let first = try #require(try ICEPairing.exchange(aliceICE, bobICE))
        try call.start()
        defer { call.stop() }
        call.expectKeyed()
        let deadline = MonotonicClock.nanoseconds + 60_000_000_000
        #expect(call.waitForPackets(50, deadline: deadline))
        let credentials = aliceICE.localCredentials
        let restarted = try #require(try ICEPairing.restart(aliceICE, bobICE))
        #expect(aliceICE.localCredentials != credentials, "new credentials")
        // Gathered anew (as after a network change): new sockets, so new ports.
        // ("candidate:foundation component transport priority address port typ …")
        func ports(_ events: [ICEEvent]) -> Set<Substring> { Set(ICEPairing.candidates(events).map { $0.split(separator: " ")[5] }) }
        #expect(!ports(restarted.a).isEmpty && ports(restarted.a).isDisjoint(with: ports(first.a)),
                "candidates gathered again: \(ports(first.a)) → \(ports(restarted.a))")
        try call.expectSpeechGoesOnAfterTheRestart(deadline: deadline)
    }

    @Test func aTransportWithBothOrNeitherPathIsRefused() throws {
        let party = try EngineParty(speech: VoiceEngineTests.alice)
        let ice = try Self.agent(.controlling)
        defer { ice.close() }
        var both = CallTransport(rtp: party.socket)
        both.ice = ice
        #expect(throws: VoiceEngineError.self) { try party.engine.addCall(party.call, transport: both) }
        var neither = CallTransport(ice: ice)
        neither.ice = nil
        #expect(throws: VoiceEngineError.self) { try party.engine.addCall(party.call, transport: neither) }
        var withRTCP = CallTransport(ice: ice)
        withRTCP.rtcp = party.socket
        #expect(throws: VoiceEngineError.self) { try party.engine.addCall(party.call, transport: withRTCP) }
        #expect(party.engine.callIDs.isEmpty)
    }
}
