// SPDX-License-Identifier: Apache-2.0
import MediaBasics
@testable import MediaEngine
import MediaEngineTesting
import Testing
import Transport

/// Two engine parties, Alice and Bob, whose calls are carried by the two ICE agents given and
/// keyed by a DTLS-SRTP handshake (Alice the server), added to their engines but not started:
/// what the ICE call tests share, from a first handshake to speech after a restart.
struct ICECallFixture {
    let alice: EngineParty
    let bob: EngineParty
    let aliceICE: ICEAgent
    let bobICE: ICEAgent
    let aliceEvents: EngineEventLog
    let bobEvents: EngineEventLog

    init(aliceICE: ICEAgent, bobICE: ICEAgent) throws {
        alice = try EngineParty(speech: VoiceEngineTests.alice, keyedByHandshake: true)
        bob = try EngineParty(speech: VoiceEngineTests.bob, keyedByHandshake: true)
        self.aliceICE = aliceICE
        self.bobICE = bobICE
        let aliceCertificate = try DTLSCertificate(), bobCertificate = try DTLSCertificate()
        let aliceKeying = DTLSKeying(certificate: aliceCertificate, configuration: .init(role: .server, remoteFingerprints: [bobCertificate.fingerprint]))
        let bobKeying = DTLSKeying(certificate: bobCertificate, configuration: .init(role: .client, remoteFingerprints: [aliceCertificate.fingerprint]))
        aliceEvents = EngineEventLog(alice.engine)
        bobEvents = EngineEventLog(bob.engine)
        // Added before connectivity, as after an answer: the handshake waits for the pair.
        try alice.engine.addCall(alice.call, transport: CallTransport(ice: aliceICE, dtls: aliceKeying))
        try bob.engine.addCall(bob.call, transport: CallTransport(ice: bobICE, dtls: bobKeying))
    }

    func start() throws {
        try alice.engine.start()
        try bob.engine.start()
    }

    func stop() {
        alice.engine.stop()
        bob.engine.stop()
    }

    static func isHandshakeDone(_ event: VoiceEngineEvent) -> Bool { if case .dtlsConnected = event { true } else { false } }

    /// Both handshakes done (within 30 s each).
    func expectKeyed() {
        #expect(aliceEvents.wait(seconds: 30, for: Self.isHandshakeDone) != nil, "\(aliceEvents.all)")
        #expect(bobEvents.wait(seconds: 30, for: Self.isHandshakeDone) != nil, "\(bobEvents.all)")
    }

    /// Waits until each side received `count` more packets than `from` (or `deadline`, on the
    /// monotonic clock in nanoseconds, passes); whether both did.
    func waitForPackets(_ count: Int, from: (alice: Int, bob: Int) = (0, 0), deadline: Int64) -> Bool {
        func done() -> Bool { DTLSCallTests.received(alice) >= from.alice + count && DTLSCallTests.received(bob) >= from.bob + count }
        while !done() && MonotonicClock.nanoseconds < deadline { VoiceEngineTests.sleep(seconds: 0.02) }
        return done()
    }

    /// After an ICE restart: a pair selected again on Alice's agent, 100 more packets each
    /// way, and the call under the keys it had — one handshake each side, nothing failing to
    /// authenticate, no handshake failure.
    func expectSpeechGoesOnAfterTheRestart(deadline: Int64) throws {
        var seen: [ICEEvent] = []
        #expect(ICEPairing.wait(aliceICE, seconds: 30, into: &seen) { if case .selectedPair = $0 { true } else { false } },
                "a pair selected again after the restart: \(seen)")
        let before = (alice: DTLSCallTests.received(alice), bob: DTLSCallTests.received(bob))
        #expect(waitForPackets(100, from: before, deadline: deadline),
                "speech flows after the restart: \(before) → \(DTLSCallTests.received(alice)), \(DTLSCallTests.received(bob))")
        for (party, log) in [(alice, aliceEvents), (bob, bobEvents)] {
            let statistics = try #require(party.engine.statistics(of: party.engine.callIDs[0]))
            #expect(statistics.transport.srtp.authFailures == 0, "the keys did not change")
            #expect(log.all.filter(Self.isHandshakeDone).count == 1, "one handshake: \(log.all)")
            #expect(!log.all.contains { if case .dtlsFailed = $0 { true } else { false } }, "\(log.all)")
        }
    }
}
