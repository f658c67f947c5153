// SPDX-License-Identifier: Apache-2.0
import Foundation
import SRTP
import Testing
import TestSupport
import Transport

/// Issue 25: DTLS-SRTP keying (RFC 5763/5764) between two associations in memory: the handshake,
/// the keys each side derives, the fingerprint check, lost flights, a silent peer, close.
@Suite struct DTLSAssociationTests {
    /// A client and a server that know each other's fingerprints.
    struct Pair {
        let client: DTLSAssociation
        let server: DTLSAssociation
        var outcomes: (client: [DTLSAssociation.Outcome], server: [DTLSAssociation.Outcome]) = ([], [])

        init(clientProfiles: [SRTPProfile] = SRTPProfile.dtlsPreference, serverProfiles: [SRTPProfile] = SRTPProfile.dtlsPreference,
             serverExpects: CertificateFingerprint? = nil, tune: (inout DTLSAssociation.Configuration) -> Void = { _ in }) throws {
            let clientCertificate = try DTLSCertificate()
            let serverCertificate = try DTLSCertificate()
            var clientConfiguration = DTLSAssociation.Configuration(role: .client, remoteFingerprints: [serverCertificate.fingerprint])
            clientConfiguration.profiles = clientProfiles
            tune(&clientConfiguration)
            var serverConfiguration = DTLSAssociation.Configuration(role: .server,
                                                                    remoteFingerprints: [serverExpects ?? clientCertificate.fingerprint])
            serverConfiguration.profiles = serverProfiles
            tune(&serverConfiguration)
            client = try DTLSAssociation(certificate: clientCertificate, configuration: clientConfiguration)
            server = try DTLSAssociation(certificate: serverCertificate, configuration: serverConfiguration)
        }

        /// Carries every waiting datagram across, both ways, until nothing is left to carry;
        /// `drop` decides each datagram's fate (true: lost). Returns how many were carried.
        @discardableResult
        mutating func exchange(nowMs: Double = 0, drop: (_ fromClient: Bool, _ index: Int) -> Bool = { _, _ in false }) -> Int {
            var carried = 0
            var index = 0
            while true {
                var moved = false
                for fromClient in [true, false] {
                    let (source, target) = fromClient ? (client, server) : (server, client)
                    var datagrams: [[UInt8]] = []
                    source.drainDatagrams { datagrams.append($0) }
                    for datagram in datagrams {
                        defer { index += 1 }
                        moved = true
                        if drop(fromClient, index) { continue }
                        carried += 1
                        #expect((20...63).contains(datagram[0]), "RFC 7983: a DTLS record starts with 20…63")
                        #expect(datagram.count <= target.configuration.mtu)
                        if let outcome = datagram.withUnsafeBytes({ target.receive($0, nowMs: nowMs) }) {
                            if fromClient { outcomes.server.append(outcome) } else { outcomes.client.append(outcome) }
                        }
                    }
                }
                if !moved { return carried }
            }
        }
    }

    @Test func aHandshakeKeysBothSidesWithMirroredKeys() throws {
        var pair = try Pair()
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        pair.exchange()
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
        let client = try #require(pair.client.keys)
        let server = try #require(pair.server.keys)
        #expect(client.profile == .aeadAES128GCM, "our first preference, offered by both")
        #expect(client.sending == server.receiving)
        #expect(client.receiving == server.sending)
        #expect(client.sending != client.receiving)
        #expect(client.peerFingerprint == pair.client.configuration.remoteFingerprints[0])
        #expect(server.peerFingerprint == pair.server.configuration.remoteFingerprints[0])
        #expect(pair.outcomes.client == [.connected(client)] && pair.outcomes.server == [.connected(server)])
        #expect(pair.client.nextWakeUpMs(nowMs: 0) == nil)
    }

    @Test func theKeysProtectOnOneSideAndUnprotectOnTheOther() throws {
        var pair = try Pair()
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        pair.exchange()
        let client = try #require(pair.client.keys)
        let server = try #require(pair.server.keys)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: client.sending)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: server.receiving)
        var packet = [UInt8](repeating: 0, count: 12 + 40 + SRTPSession.maximumTrailerLength)
        packet[0] = 0x80
        packet[1] = 111
        packet[11] = 7
        for index in 12..<52 { packet[index] = UInt8(index) }
        let original = Array(packet[0..<52])
        let length = try packet.withUnsafeMutableBytes { try sender.protect($0, length: 52) }
        let plain = try packet.withUnsafeMutableBytes { try receiver.unprotect($0, length: length) }
        #expect(Array(packet[0..<plain]) == original)
    }

    @Test func theOnlyProfileInCommonIsChosen() throws {
        var pair = try Pair(clientProfiles: [.aesCM128HmacSha1_80], serverProfiles: SRTPProfile.dtlsPreference)
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        pair.exchange()
        #expect(pair.client.keys?.profile == .aesCM128HmacSha1_80)
        #expect(pair.server.keys?.profile == .aesCM128HmacSha1_80)
    }

    @Test func noProfileInCommonFailsWithoutKeys() throws {
        var pair = try Pair(clientProfiles: [.aesCM128HmacSha1_80], serverProfiles: [.aeadAES128GCM])
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        pair.exchange()
        #expect(pair.client.keys == nil && pair.server.keys == nil)
        #expect(pair.client.state != .connected && pair.server.state != .connected)
        #expect(pair.client.state == .failed(.noCommonSRTPProfile))
    }

    /// A server told another fingerprint than the client's certificate has: the handshake
    /// fails on both sides (the server's bad_certificate alert reaches the client), and
    /// neither side has a key.
    @Test func aForgedFingerprintFailsTheHandshakeOnBothSides() throws {
        let stranger = try DTLSCertificate()
        var pair = try Pair(serverExpects: stranger.fingerprint)
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        pair.exchange()
        guard case let .failed(.fingerprintMismatch(expected, presented)) = pair.server.state else {
            Issue.record("server state \(pair.server.state)")
            return
        }
        #expect(expected == [stranger.fingerprint])
        #expect(presented != nil, "the certificate the client showed, hashed")
        #expect(presented != stranger.fingerprint)
        guard case .failed = pair.client.state else {
            Issue.record("client state \(pair.client.state): it must learn of the alert")
            return
        }
        #expect(pair.client.keys == nil && pair.server.keys == nil)
    }

    /// The client expects another server: it refuses the server's certificate itself.
    @Test func theClientChecksTheServerToo() throws {
        let stranger = try DTLSCertificate()
        var pair = try Pair { configuration in
            if configuration.role == .client { configuration.remoteFingerprints = [stranger.fingerprint] }
        }
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        pair.exchange()
        guard case .failed(.fingerprintMismatch) = pair.client.state else {
            Issue.record("client state \(pair.client.state)")
            return
        }
        #expect(pair.server.keys == nil && pair.client.keys == nil)
    }

    /// Every first transmission of every flight lost: the retransmission timers (10 ms here,
    /// doubling) carry the handshake through. OpenSSL's timers run on the wall clock, so the
    /// test waits for them, with a bound far above what they need.
    @Test func lostFlightsAreSentAgain() throws {
        let pair = try Pair { $0.initialRetransmissionMs = 10 }
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        // A datagram's flight: who sent it, its first record's content type and epoch, and in
        // epoch 0 the handshake message type (a retransmission has new record numbers, so
        // its bytes differ; its flight does not).
        var seen = Set<[UInt8]>()
        func flight(_ datagram: [UInt8], fromClient: Bool) -> [UInt8] {
            let epoch = datagram.count > 4 ? datagram[4] : 0xFF
            let message = epoch == 0 && datagram.count > 13 ? datagram[13] : 0xFF
            return [fromClient ? 1 : 0, datagram[0], epoch, message]
        }
        var lost = 0
        let start = Date()
        while pair.client.state != .connected || pair.server.state != .connected {
            #expect(Date().timeIntervalSince(start) < 20, "no handshake after 20 s")
            if Date().timeIntervalSince(start) >= 20 { return }
            // Each flight's first datagram is lost the first time it is sent.
            var batch: [(Bool, [UInt8])] = []
            pair.client.drainDatagrams { batch.append((true, $0)) }
            pair.server.drainDatagrams { batch.append((false, $0)) }
            for (fromClient, datagram) in batch {
                if seen.insert(flight(datagram, fromClient: fromClient)).inserted {
                    lost += 1
                    continue
                }
                let target = fromClient ? pair.server : pair.client
                _ = datagram.withUnsafeBytes { target.receive($0, nowMs: 1) }
            }
            Thread.sleep(forTimeInterval: 0.005)
            pair.client.poll(nowMs: 1)
            pair.server.poll(nowMs: 1)
        }
        #expect(lost >= 4, "every flight lost once: \(lost)")
        #expect(pair.client.keys?.sending == pair.server.keys?.receiving)
    }

    /// A peer that never answers: the handshake fails at its deadline, on the caller's clock.
    @Test func aSilentPeerTimesOutAtTheDeadline() throws {
        let pair = try Pair { $0.handshakeTimeoutMs = 2_000 }
        pair.client.start(nowMs: 1_000)
        var sent = 0
        pair.client.drainDatagrams { _ in sent += 1 }
        #expect(sent == 1, "the ClientHello")
        #expect(pair.client.poll(nowMs: 2_999) == nil)
        let wakeUp = try #require(pair.client.nextWakeUpMs(nowMs: 2_999))
        #expect(wakeUp <= 3_000)
        #expect(pair.client.poll(nowMs: 3_000) == .failed(.handshakeTimedOut(milliseconds: 2_000)))
        #expect(pair.client.state == .failed(.handshakeTimedOut(milliseconds: 2_000)))
        // A server that never hears a ClientHello times out the same way.
        pair.server.start(nowMs: 0)
        #expect(pair.server.poll(nowMs: 2_000) == .failed(.handshakeTimedOut(milliseconds: 2_000)))
    }

    @Test func closeNotifyEndsTheAssociationOnTheOtherSide() throws {
        var pair = try Pair()
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        pair.exchange()
        pair.client.close()
        pair.exchange()
        #expect(pair.client.state == .closed)
        #expect(pair.server.state == .closed)
        #expect(pair.outcomes.server.last == .closed)
    }

    /// Garbage where DTLS records belong (a forged datagram with a DTLS first byte, or a
    /// truncated record) during the handshake: dropped by OpenSSL, the handshake goes on.
    @Test func garbageDuringTheHandshakeDoesNotStopIt() throws {
        var pair = try Pair()
        pair.server.start(nowMs: 0)
        pair.client.start(nowMs: 0)
        var generator = SeededGenerator(seed: 25)
        for length in [1, 5, 13, 14, 40, 300] {
            var datagram = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            datagram[0] = 22
            if length > 2 { datagram[1] = 0xFE; datagram[2] = 0xFD }
            _ = datagram.withUnsafeBytes { pair.server.receive($0, nowMs: 0) }
            _ = datagram.withUnsafeBytes { pair.client.receive($0, nowMs: 0) }
        }
        pair.exchange()
        #expect(pair.client.state == .connected)
        #expect(pair.server.state == .connected)
    }

    @Test func badConfigurationsAreRefusedAtInit() throws {
        let certificate = try DTLSCertificate()
        func refused(_ change: (inout DTLSAssociation.Configuration) -> Void) -> Bool {
            var configuration = DTLSAssociation.Configuration(role: .client, remoteFingerprints: [certificate.fingerprint])
            change(&configuration)
            do {
                _ = try DTLSAssociation(certificate: certificate, configuration: configuration)
                return false
            } catch {
                guard case .badParameter = error else { return false }
                return true
            }
        }
        #expect(refused { $0.remoteFingerprints = [] })
        #expect(refused { $0.profiles = [] })
        #expect(refused { $0.profiles = [.aes256CMHmacSha1_80] })
        #expect(refused { $0.mtu = 100 })
        #expect(refused { $0.initialRetransmissionMs = 0 })
        #expect(refused { $0.maximumRetransmissionMs = 5 })
        #expect(refused { $0.handshakeTimeoutMs = Int.max })
        #expect(!refused { _ in })
        #expect(throws: DTLSError.self) { try DTLSCertificate(validityDays: 0) }
    }

    @Test func eachCertificateIsFreshAndItsFingerprintIsSHA256() throws {
        let one = try DTLSCertificate()
        let two = try DTLSCertificate()
        #expect(one.fingerprint.hashFunction == .sha256)
        #expect(one.fingerprint != two.fingerprint)
    }
}
