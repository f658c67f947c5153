// SPDX-License-Identifier: Apache-2.0
import CallCore
import Foundation
import MediaEngine
import SRTP
import SessionDescription
import Testing
import Transport
@testable import voicecall

/// `RealTimeMediaLoop` running a call's DTLS-SRTP handshake (what `send`, `receive` and `call`
/// with `--dtls` do), two loops in one process stepped in turn on a virtual clock over real
/// sockets on loopback (which delivers a datagram before `sendto` returns): nothing here waits
/// for the wall clock.
@Suite struct DTLSMediaLoopTests {
    /// One end: its socket, its call keyed by handshake, its certificate.
    final class End {
        let socket: UDPSocket
        let media: CallMedia
        let certificate: DTLSCertificate
        var lines: [String] = []

        init(ssrc: UInt32) throws {
            socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
            media = try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake, ssrc: ssrc, rtcpSeed: UInt64(ssrc))
            certificate = try DTLSCertificate()
        }

        var address: PeerAddress { get throws { try PeerAddress(socket.localEndpoint) } }

        /// A loop for this end's call whose handshake plays `role` against `peer`, expecting
        /// the certificate `expects` (the peer's unless a test forges it).
        func loop(role: DTLSRole, peer: End, expects: CertificateFingerprint? = nil, remote: PeerAddress?, plan: RealTimeMediaLoop.Plan,
                  handshakeTimeoutMs: Int = 10_000, clock: @escaping () -> Double) throws -> RealTimeMediaLoop {
            var configuration = DTLSAssociation.Configuration(role: role, remoteFingerprints: [expects ?? peer.certificate.fingerprint])
            configuration.handshakeTimeoutMs = handshakeTimeoutMs
            let keying = try DTLSCallKeying(media: media, keying: DTLSKeying(certificate: certificate, configuration: configuration))
            let handshake = RealTimeMediaLoop.Handshake(keying: keying, peer: try peer.address) { [self] in lines.append($0) }
            return RealTimeMediaLoop(media: media, socket: socket, remote: remote, plan: plan, handshake: handshake, clock: clock)
        }
    }

    /// A sender's plan: one second of a tone (50 frames), ending when it is sent.
    static func senderPlan() -> RealTimeMediaLoop.Plan {
        var plan = RealTimeMediaLoop.Plan()
        plan.source = (0..<48_000).map { Int16(8_000 * sin(Double($0) * 2 * .pi * 440 / 48_000)) }
        plan.endsWhenSourceEnds = true
        return plan
    }

    /// A receiver's plan, as `voicecall receive` makes it (recording nowhere).
    static func receiverPlan(giveUpSeconds: Double = 10) -> RealTimeMediaLoop.Plan {
        var plan = RealTimeMediaLoop.Plan()
        plan.records = true
        plan.expectsMedia = true
        plan.endsAfterPeerSilenceSeconds = 2
        plan.repliesToSender = true
        plan.giveUpSeconds = giveUpSeconds
        return plan
    }

    /// The sender's file goes whole: no frame is taken from it before the handshake keys the
    /// call (else the first frames would be encoded and dropped), so all 50 reach the receiver;
    /// both say what keyed them; the sender's close_notify ends the receiver half a second
    /// later, not after its 2 s of silence.
    @Test func theSourceWaitsForTheKeysAndTheClosingEndsTheReceiver() throws {
        let alice = try End(ssrc: 1), bob = try End(ssrc: 2)
        var now = 1_000.0
        let sender = try alice.loop(role: .client, peer: bob, remote: try bob.address, plan: Self.senderPlan()) { now }
        let receiver = try bob.loop(role: .server, peer: alice, remote: nil, plan: Self.receiverPlan()) { now }
        var senderEnded = false, receiverEndedAt: Double?
        for _ in 0..<400 {
            if !senderEnded, try sender.step().ended {
                senderEnded = true
                _ = sender.finish()
            }
            if try receiver.step().ended {
                receiverEndedAt = now
                break
            }
            now += 20
        }
        let sent = sender.finish(), received = receiver.finish()
        #expect(alice.lines.contains { $0.hasPrefix("DTLS-SRTP connected: AEAD_AES_128_GCM") }, "\(alice.lines)")
        #expect(bob.lines.contains { $0.hasPrefix("DTLS-SRTP connected: AEAD_AES_128_GCM") }, "\(bob.lines)")
        #expect(bob.lines.contains(RealCallDTLS.closed), "\(bob.lines)")
        #expect(sent.statistics.outbound.packetsSent == 50 && sent.rtpSent == 50, "\(sent.statistics.outbound.packetsSent) encoded, \(sent.rtpSent) sent")
        #expect(sent.handshakeSent >= 2, "the ClientHello and the client's Finished flight at least")
        #expect(received.statistics.inbound.packetsReceived == 50)
        #expect(received.statistics.transport.srtp.authFailures == 0)
        // The sender ends 200 ms after its last frame; the receiver 500 ms after the close.
        let ended = try #require(receiverEndedAt)
        #expect(ended < 1_000 + 1_000 + 1_200, "ended at \(ended) ms: after the close, not after 2 s of silence")
    }

    /// Nobody answers the ClientHello: the run ends at the handshake's deadline as a peer that
    /// is not there (exit 6), having sent nothing but DTLS. (Retransmissions are not counted:
    /// OpenSSL times them on the wall clock, which this test does not advance.)
    @Test func aHandshakeNobodyAnswersIsUnreachableAtItsDeadline() throws {
        let alice = try End(ssrc: 1), silent = try End(ssrc: 2)
        var now = 1_000.0
        let sender = try alice.loop(role: .client, peer: silent, remote: try silent.address, plan: Self.senderPlan(),
                                    handshakeTimeoutMs: 2_000) { now }
        var failure: RealCallFailure?
        for _ in 0..<400 {
            do {
                _ = try sender.step()
            } catch {
                failure = error
                break
            }
            now += 20
        }
        let thrown = try #require(failure)
        #expect(thrown.exitStatus == 6, "\(thrown)")
        #expect("\(thrown)".contains("no DTLS-SRTP handshake with \(try silent.address) within 2 s"), "\(thrown)")
        #expect(now >= 3_000 && now <= 3_040, "at the deadline: \(now)")
        var buffer = [UInt8](repeating: 0, count: 2_048)
        var datagrams = 0
        while let datagram = try buffer.withUnsafeMutableBytes({ try silent.socket.receive(into: $0) }) {
            datagrams += 1
            #expect((20...63).contains(buffer[0]), "a datagram of \(datagram.length) bytes that is not DTLS went out before the keys")
        }
        #expect(datagrams >= 1, "the ClientHello")
    }

    /// The receiver waits 1.5 s for a sender that comes late, past its 1 s give-up: the wait
    /// for media counts from the keys, not from the start. Once keyed, a sender that sends no
    /// media makes it give up 1 s after the keys, saying so.
    @Test func theMediaGiveUpCountsFromTheKeys() throws {
        let alice = try End(ssrc: 1), bob = try End(ssrc: 2)
        var now = 1_000.0
        let receiver = try bob.loop(role: .server, peer: alice, remote: nil, plan: Self.receiverPlan(giveUpSeconds: 1),
                                    handshakeTimeoutMs: 5_000) { now }
        for _ in 0..<75 {
            #expect(try !receiver.step().ended)
            now += 20
        }
        var silentPlan = RealTimeMediaLoop.Plan()
        silentPlan.maximumSeconds = 10
        let sender = try alice.loop(role: .client, peer: bob, remote: try bob.address, plan: silentPlan) { now }
        var failure: RealCallFailure?
        var keyedAt: Double?
        for _ in 0..<200 {
            _ = try sender.step()
            do {
                _ = try receiver.step()
            } catch {
                failure = error
                break
            }
            if keyedAt == nil && bob.lines.contains(where: { $0.hasPrefix("DTLS-SRTP connected") }) { keyedAt = now }
            now += 20
        }
        let keyed = try #require(keyedAt)
        #expect(keyed > 2_500 && keyed < 2_700, "keyed at \(keyed)")
        let thrown = try #require(failure)
        #expect(thrown.exitStatus == 6)
        #expect("\(thrown)".contains("no SRTP packet that authenticates arrived in 1 s after the DTLS-SRTP handshake"), "\(thrown)")
        #expect(now >= keyed + 1_000 && now <= keyed + 1_040, "gave up at \(now), keyed at \(keyed)")
    }

    /// The receiver expects another certificate than the sender shows: both runs end with
    /// exit 8 before any media, the receiver naming the mismatch, the sender the alert.
    @Test func aForgedFingerprintEndsBothRunsWithExit8() throws {
        let alice = try End(ssrc: 1), bob = try End(ssrc: 2)
        let forged = try DTLSCertificate().fingerprint
        var now = 1_000.0
        let sender = try alice.loop(role: .client, peer: bob, remote: try bob.address, plan: Self.senderPlan()) { now }
        let receiver = try bob.loop(role: .server, peer: alice, expects: forged, remote: nil, plan: Self.receiverPlan()) { now }
        var senderFailure: RealCallFailure?, receiverFailure: RealCallFailure?
        for _ in 0..<100 where senderFailure == nil || receiverFailure == nil {
            if senderFailure == nil {
                do { _ = try sender.step() } catch { senderFailure = error }
            }
            if receiverFailure == nil {
                do { _ = try receiver.step() } catch { receiverFailure = error }
            }
            now += 20
        }
        let refused = try #require(receiverFailure)
        #expect(refused.exitStatus == 8)
        #expect("\(refused)".contains("matches no a=fingerprint of its SDP (\(forged.sdpValue))"), "\(refused)")
        #expect("\(refused)".contains("no media was sent or played"))
        let alerted = try #require(senderFailure)
        #expect(alerted.exitStatus == 8, "\(alerted)")
        #expect(bob.media.statistics.inbound.packetsReceived == 0 && alice.media.statistics.outbound.packetsSent == 0)
    }

    /// `--give-up` becomes the handshake's deadline, within what the association takes; a call
    /// keyed by SDES runs no handshake.
    @Test func theHandshakeDeadlineIsTheGiveUpWithinItsBounds() throws {
        let ours = try DTLSCertificate(), theirs = try DTLSCertificate()
        var offerer = LocalAudio(address: "127.0.0.1", port: 40_000)
        offerer.keyExchange = .dtls(fingerprint: theirs.fingerprint)
        var answerer = LocalAudio(address: "127.0.0.1", port: 40_002)
        answerer.keyExchange = .dtls(fingerprint: ours.fingerprint)
        let (_, negotiated) = try SessionDescription.offer(from: offerer).answer(from: answerer) { .random(profile: $0) }
        for (giveUp, deadline) in [(0.05, 100), (2.5, 2_500), (600.0, 120_000)] {
            let keying = try #require(try RealCallDTLS.keying(negotiated, certificate: ours, giveUpSeconds: giveUp))
            #expect(keying.configuration.handshakeTimeoutMs == deadline)
            #expect(keying.configuration.role == .client && keying.configuration.remoteFingerprints == [theirs.fingerprint])
        }
        #expect(throws: RealCallFailure.self) { try RealCallDTLS.keying(negotiated, certificate: nil, giveUpSeconds: 10) }
        let sdes = try SessionDescription.offer(from: LocalAudio(address: "127.0.0.1", port: 40_000), keys: LocalAudio.supportedSuites.map { .random(profile: $0) })
            .answer(from: LocalAudio(address: "127.0.0.1", port: 40_002)) { .random(profile: $0) }.1
        #expect(try RealCallDTLS.keying(sdes, certificate: ours, giveUpSeconds: 10) == nil)
    }
}
