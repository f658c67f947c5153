// SPDX-License-Identifier: Apache-2.0
import CallNegotiation
import MediaEngineTesting
import SessionDescription
import Testing
import Transport

/// ICE through offer/answer: what the negotiation hands an agent (`connectICE`) connects two
/// real agents (libnice, loopback); a re-offer with new credentials is an ICE restart
/// (`restartsICE(since:)`) that both agents follow to a new pair, with the call's media kept.
@Suite(.timeLimit(.minutes(2))) struct ICENegotiationTests {
    static func agent(_ role: ICEConfiguration.Role) throws -> ICEAgent {
        var configuration = ICEConfiguration(role: role)
        configuration.localAddresses = ["127.0.0.1"]
        return try ICEAgent(configuration: configuration)
    }

    /// The agent's candidates reported since `events` began (up to `.gatheringDone`), as our
    /// SDP's ICE side, with a DTLS fingerprint.
    static func audio(_ agent: ICEAgent, port: UInt16, certificate: DTLSCertificate) throws -> LocalAudio {
        var events: [ICEEvent] = []
        #expect(ICEPairing.wait(agent, into: &events) { $0 == .gatheringDone })
        let candidates = try ICEPairing.candidates(events).map { try ICECandidate(parsing: $0) }
        var audio = LocalAudio(address: "127.0.0.1", port: port)
        audio.keyExchange = .dtls(fingerprint: certificate.fingerprint)
        audio.ice = try LocalICE(usernameFragment: agent.localCredentials.usernameFragment, password: agent.localCredentials.password,
                                 candidates: candidates, endOfCandidates: true)
        return audio
    }

    static func selectedPair(_ agent: ICEAgent) -> Bool {
        var seen: [ICEEvent] = []
        return ICEPairing.wait(agent, seconds: 30, into: &seen) { if case .selectedPair = $0 { true } else { false } }
    }

    @Test func theNegotiationConnectsTwoAgentsAndARestartIsFollowed() throws {
        let aliceAgent = try Self.agent(.controlling), bobAgent = try Self.agent(.controlled)
        defer {
            aliceAgent.close()
            bobAgent.close()
        }
        let aliceCertificate = try DTLSCertificate(), bobCertificate = try DTLSCertificate()
        try aliceAgent.gatherCandidates()
        try bobAgent.gatherCandidates()
        let aliceAudio = try Self.audio(aliceAgent, port: 40_000, certificate: aliceCertificate)
        let bobAudio = try Self.audio(bobAgent, port: 50_000, certificate: bobCertificate)
        let (aliceSide, bobSide) = try CallNegotiationTests.negotiate(alice: aliceAudio, bob: bobAudio)
        #expect(try aliceSide.connectICE(aliceAgent) == bobAudio.ice?.candidates.count)
        #expect(try bobSide.connectICE(bobAgent) == aliceAudio.ice?.candidates.count)
        #expect(Self.selectedPair(aliceAgent) && Self.selectedPair(bobAgent), "connected through what offer/answer carried")
        let media = try aliceSide.makeCallMedia()

        // The same exchange again (a hold, say) is no restart.
        let (sameAlice, sameBob) = try CallNegotiationTests.negotiate(alice: aliceAudio, bob: bobAudio)
        #expect(!sameAlice.restartsICE(since: aliceSide) && !sameBob.restartsICE(since: bobSide))

        // Alice restarts (a network change): her re-offer carries new credentials.
        try aliceAgent.restart()
        let aliceRestarted = try Self.audio(aliceAgent, port: 40_000, certificate: aliceCertificate)
        let (_, bobSeesOffer) = try CallNegotiationTests.negotiate(alice: aliceRestarted, bob: bobAudio)
        #expect(bobSeesOffer.restartsICE(since: bobSide), "Bob sees the restart in the offer")
        // So Bob restarts too and answers with his own new credentials.
        try bobAgent.restart()
        let bobRestarted = try Self.audio(bobAgent, port: 50_000, certificate: bobCertificate)
        let (aliceAfter, bobAfter) = try CallNegotiationTests.negotiate(alice: aliceRestarted, bob: bobRestarted)
        #expect(aliceAfter.restartsICE(since: aliceSide) && bobAfter.restartsICE(since: bobSide))
        try aliceAfter.connectICE(aliceAgent)
        try bobAfter.connectICE(bobAgent)
        #expect(Self.selectedPair(aliceAgent) && Self.selectedPair(bobAgent), "a pair again after the restart")
        // The running call takes the restart in place: same media, same DTLS keys.
        _ = try aliceAfter.apply(to: media, replacing: aliceSide)
    }

    @Test func aPeerWithoutICEIsATypedError() throws {
        let agent = try Self.agent(.controlling)
        defer { agent.close() }
        let (aliceSide, _) = try CallNegotiationTests.negotiate(alice: LocalAudio(address: "192.0.2.1", port: 40_000),
                                                               bob: LocalAudio(address: "192.0.2.2", port: 50_000))
        #expect(throws: CallNegotiationError.noRemoteICE) { try aliceSide.connectICE(agent) }
        var forged = aliceSide
        forged.remoteICE = ICEAttributes(usernameFragment: "ab", password: "short")
        #expect(throws: CallNegotiationError.ice(.badRemoteCredentials)) { try forged.connectICE(agent) }
    }
}
