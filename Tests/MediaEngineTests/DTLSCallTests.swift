// SPDX-License-Identifier: Apache-2.0
import AudioDevices
@testable import CallCore
@testable import MediaEngine
import SRTP
import Testing
import TestSupport
import Transport

/// Issue 25: calls keyed by DTLS-SRTP between two engines over UDP on loopback — the
/// handshake on the call's own port (RFC 7983), speech both ways once keyed, nothing sent or
/// played before, a forged fingerprint or a silent peer a typed event in bounded time.
@Suite(.timeLimit(.minutes(3))) struct DTLSCallTests {
    /// Alice (the DTLS client, `a=setup:active`) and Bob (the server), each knowing the other's
    /// certificate by fingerprint unless `bobExpects` says otherwise.
    static func pair(bobExpects: CertificateFingerprint? = nil,
                     tune: (inout DTLSAssociation.Configuration) -> Void = { _ in }) throws
        -> (alice: EngineParty, bob: EngineParty, aliceKeying: DTLSKeying, bobKeying: DTLSKeying)
    {
        let alice = try EngineParty(speech: VoiceEngineTests.alice, keyedByHandshake: true)
        let bob = try EngineParty(speech: VoiceEngineTests.bob, keyedByHandshake: true)
        try alice.socket.setRemote(bob.socket.localEndpoint)
        try bob.socket.setRemote(alice.socket.localEndpoint)
        let aliceCertificate = try DTLSCertificate()
        let bobCertificate = try DTLSCertificate()
        var aliceConfiguration = DTLSAssociation.Configuration(role: .client, remoteFingerprints: [bobCertificate.fingerprint])
        var bobConfiguration = DTLSAssociation.Configuration(role: .server, remoteFingerprints: [bobExpects ?? aliceCertificate.fingerprint])
        tune(&aliceConfiguration)
        tune(&bobConfiguration)
        return (alice, bob, DTLSKeying(certificate: aliceCertificate, configuration: aliceConfiguration),
                DTLSKeying(certificate: bobCertificate, configuration: bobConfiguration))
    }

    static func received(_ party: EngineParty) -> Int {
        party.engine.statistics(of: party.engine.callIDs[0])?.inbound.packetsReceived ?? 0
    }

    @Test func aHandshakeOnTheCallsPortKeysItAndSpeechGoesBothWays() throws {
        let (alice, bob, aliceKeying, bobKeying) = try Self.pair()
        let aliceEvents = EngineEventLog(alice.engine)
        let bobEvents = EngineEventLog(bob.engine)
        try alice.engine.addCall(alice.call, transport: CallTransport(rtp: alice.socket, dtls: aliceKeying))
        try bob.engine.addCall(bob.call, transport: CallTransport(rtp: bob.socket, dtls: bobKeying))
        // The allocations of each of Bob's audio cycles once keyed: the handshake runs on the
        // network thread, and the audio thread's path stays allocation-free with DTLS on.
        let probe = CycleAllocationProbe(bob.engine)
        try alice.engine.start()
        try bob.engine.start()
        func connected(_ event: VoiceEngineEvent) -> Bool {
            if case .dtlsConnected = event { return true }
            return false
        }
        let aliceConnected = try #require(aliceEvents.wait(seconds: 20, for: connected))
        let bobConnected = try #require(bobEvents.wait(seconds: 20, for: connected))
        guard case let .dtlsConnected(_, profile, peerFingerprint) = aliceConnected,
              case let .dtlsConnected(_, bobProfile, alicesFingerprint) = bobConnected
        else { return }
        #expect(profile == .aeadAES128GCM && bobProfile == .aeadAES128GCM)
        #expect(peerFingerprint == bobKeying.certificate.fingerprint)
        #expect(alicesFingerprint == aliceKeying.certificate.fingerprint)
        // Measured from half a second of media on (set here, read on the audio thread).
        let deadline = MonotonicClock.nanoseconds + 90_000_000_000
        while Self.received(bob) < 75 && MonotonicClock.nanoseconds < deadline { VoiceEngineTests.sleep(seconds: 0.02) }
        probe.arm()
        // 3 s of media each way, however long a loaded machine takes (the bound is for a stuck engine).
        while (Self.received(alice) < 150 || Self.received(bob) < 150) && MonotonicClock.nanoseconds < deadline {
            VoiceEngineTests.sleep(seconds: 0.05)
        }
        alice.engine.stop()
        bob.engine.stop()
        CycleAllocationProbe.detach(bob.engine)
        if AllocationCounter.isCounting {
            #expect(probe.measured > 30)
            #expect(probe.worst == 0, "an audio cycle allocated \(probe.worst) times")
        }
        let bobStatistics = try #require(bob.engine.statistics(of: bob.engine.callIDs[0]))
        let aliceStatistics = try #require(alice.engine.statistics(of: alice.engine.callIDs[0]))
        for statistics in [aliceStatistics, bobStatistics] {
            #expect(statistics.inbound.packetsReceived >= 150, "\(statistics.inbound)")
            #expect(statistics.transport.srtp.authFailures == 0)
            #expect(statistics.transport.srtp.packetsUnprotected >= 150)
            #expect(statistics.transport.multiplexedDatagrams >= 1, "the handshake came in on the call's port")
            #expect(statistics.transport.unknownProtocolDatagrams == 0)
        }
        if AllocationCounter.isCounting {
            // From the first frame Alice sent: those before the handshake were never on the wire.
            let correlation = CallOverNetworkTests.qualityFromFirstSentFrame(
                VoiceEngineTests.alice, discardedBeforeKeys: aliceStatistics.transport.srtp.discardedBeforeKeys, heard: bob.heard)
            #expect(correlation > 0.6, "Bob heard Alice with correlation \(correlation)")
        }
        #expect(aliceEvents.all.allSatisfy { if case .dtlsFailed = $0 { false } else { true } })
    }

    /// Bob expects another certificate than Alice's: both are told, neither sends a packet
    /// (not even in clear), neither plays one.
    @Test func aForgedFingerprintIsAnEventOnBothSidesAndNoMediaFlows() throws {
        let stranger = try DTLSCertificate()
        let (alice, bob, aliceKeying, bobKeying) = try Self.pair(bobExpects: stranger.fingerprint)
        let aliceEvents = EngineEventLog(alice.engine)
        let bobEvents = EngineEventLog(bob.engine)
        try alice.engine.addCall(alice.call, transport: CallTransport(rtp: alice.socket, dtls: aliceKeying))
        try bob.engine.addCall(bob.call, transport: CallTransport(rtp: bob.socket, dtls: bobKeying))
        try alice.engine.start()
        try bob.engine.start()
        let bobFailure = try #require(bobEvents.wait(seconds: 20) { if case .dtlsFailed = $0 { true } else { false } })
        guard case let .dtlsFailed(_, .fingerprintMismatch(expected, _)) = bobFailure else {
            Issue.record("Bob: \(bobFailure)")
            return
        }
        #expect(expected == [stranger.fingerprint])
        let aliceFailure = aliceEvents.wait(seconds: 20) { if case .dtlsFailed = $0 { true } else { false } }
        #expect(aliceFailure != nil, "Alice learns of Bob's alert")
        // Half a second more of audio cycles: still nothing goes out or plays.
        VoiceEngineTests.sleep(seconds: 0.5)
        alice.engine.stop()
        bob.engine.stop()
        for party in [alice, bob] {
            let statistics = try #require(party.engine.statistics(of: party.engine.callIDs[0]))
            #expect(statistics.transport.datagramsSent == 0, "no RTP left unkeyed")
            #expect(statistics.transport.rtcpPacketsSent == 0)
            #expect(statistics.transport.srtp.packetsUnprotected == 0)
            #expect(statistics.inbound.packetsReceived == 0)
        }
        let aliceStatistics = try #require(alice.engine.statistics(of: alice.engine.callIDs[0]))
        #expect(aliceStatistics.transport.srtp.discardedBeforeKeys > 0, "the uplink ran, and its packets were dropped")
        #expect(!aliceEvents.all.contains { if case .dtlsConnected = $0 { true } else { false } })
        #expect(!bobEvents.all.contains { if case .dtlsConnected = $0 { true } else { false } })
    }

    /// A peer address where nobody answers: the handshake fails at its deadline (1 s here),
    /// reported as an event, and the engine goes on.
    @Test func aPeerThatNeverAnswersFailsAtTheDeadline() throws {
        let (alice, _, aliceKeying, _) = try Self.pair { $0.handshakeTimeoutMs = 1_000 }
        let silent = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try alice.socket.setRemote(silent.localEndpoint)
        let events = EngineEventLog(alice.engine)
        let start = MonotonicClock.nanoseconds
        let id = try alice.engine.addCall(alice.call, transport: CallTransport(rtp: alice.socket, dtls: aliceKeying))
        let failure = try #require(events.wait(seconds: 30) { if case .dtlsFailed = $0 { true } else { false } })
        #expect(failure == .dtlsFailed(id, .handshakeTimedOut(milliseconds: 1_000)))
        let elapsed = Double(MonotonicClock.nanoseconds - start) / 1e9
        #expect(elapsed >= 0.99, "not before its deadline: \(elapsed) s")
        // Flights went out again meanwhile (100 ms doubling: 100, 200, 400 ms).
        var buffer = [UInt8](repeating: 0, count: 2_048)
        var flights = 0
        while let datagram = try buffer.withUnsafeMutableBytes({ try silent.receive(into: $0) }) {
            #expect((20...63).contains(buffer[0]) && datagram.length > 13)
            flights += 1
        }
        #expect(flights >= 3, "the ClientHello and its retransmissions: \(flights)")
    }

    @Test func removingTheCallClosesThePeersAssociation() throws {
        let (alice, bob, aliceKeying, bobKeying) = try Self.pair()
        let bobEvents = EngineEventLog(bob.engine)
        let aliceEvents = EngineEventLog(alice.engine)
        let aliceCall = try alice.engine.addCall(alice.call, transport: CallTransport(rtp: alice.socket, dtls: aliceKeying))
        try bob.engine.addCall(bob.call, transport: CallTransport(rtp: bob.socket, dtls: bobKeying))
        #expect(aliceEvents.wait(seconds: 20) { if case .dtlsConnected = $0 { true } else { false } } != nil)
        #expect(bobEvents.wait(seconds: 20) { if case .dtlsConnected = $0 { true } else { false } } != nil)
        try alice.engine.removeCall(aliceCall)
        #expect(bobEvents.wait(seconds: 20) { if case .dtlsClosed = $0 { true } else { false } } != nil)
    }

    @Test func keyingThatDisagreesWithTheTransportIsRefusedAtAddCall() throws {
        let (alice, bob, aliceKeying, _) = try Self.pair()
        // A call waiting for handshake keys, with no handshake to give them.
        #expect(throws: VoiceEngineError.self) { try alice.engine.addCall(alice.call, transport: CallTransport(rtp: alice.socket)) }
        // DTLS with RTCP on its own port.
        let rtcp = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        #expect(throws: VoiceEngineError.self) {
            try alice.engine.addCall(alice.call, transport: CallTransport(rtp: alice.socket, rtcp: rtcp, dtls: aliceKeying))
        }
        // A call keyed by SDES, on a transport that runs a handshake.
        let sdes = try EngineParty(speech: VoiceEngineTests.bob)
        #expect(throws: VoiceEngineError.self) {
            try sdes.engine.addCall(sdes.call, transport: CallTransport(rtp: sdes.socket, dtls: aliceKeying))
        }
        #expect(alice.engine.callIDs.isEmpty && sdes.engine.callIDs.isEmpty && bob.engine.callIDs.isEmpty)
    }
}
