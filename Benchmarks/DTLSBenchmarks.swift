// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import CBaseline
import MediaEngine
import MediaEngineTesting
import SRTP
import TestSupport
import Transport

/// `benchmarks dtls`: what DTLS-SRTP keying costs. A whole handshake (both ends, in memory on
/// one thread, so its time is its CPU time) through `DTLSAssociation` against the same
/// handshake made with OpenSSL's calls from C; a certificate the same way; and, on two engines
/// over UDP on loopback with audio running, the time from adding the calls (the answer) to the
/// first RTP packet received each way, DTLS-SRTP against the same calls keyed by SDES; and the
/// same over ICE (libnice, host candidates on 127.0.0.1, gathered before the answer as an
/// offer needs them): from giving each agent the other's candidates to the first packet.
struct DTLSBenchmarks {
    static let group = "dtls"
    let comparison: Comparison
    let report: Report
    /// Calls set up per keying for the connection-time rows.
    var connections = 10

    func run() throws {
        report.beginGroup(Self.group, baseline: "OpenSSL 3 called from C; SDES keys for the connection time")
        if comparison.includes("handshake, both ends") { try handshake() }
        if comparison.includes("certificate P-256") { try certificate() }
        if comparison.includes("answer to first packet, loopback") { try connectionTime() }
        if comparison.includes("answer to first packet, ICE + DTLS") { try iceConnectionTime() }
    }

    private func handshake() throws {
        let count = 10
        let clientCertificate = try DTLSCertificate(), serverCertificate = try DTLSCertificate()
        guard let client = cbase_dtls_identity_create(), let server = cbase_dtls_identity_create() else { throw BenchmarkError.setup("C identities") }
        defer {
            cbase_dtls_identity_destroy(client)
            cbase_dtls_identity_destroy(server)
        }
        var failure: String?
        let result = comparison.run(operations: count, ours: {
            for _ in 0..<count {
                do {
                    try Self.handshakeInMemory(clientCertificate, serverCertificate)
                } catch {
                    failure = "\(error)"
                }
            }
        }, baseline: {
            if cbase_dtls_handshakes(client, server, Int32(count)) != 0 { failure = "the C handshake failed" }
        })
        if let failure { throw BenchmarkError.setup(failure) }
        report.add(group: Self.group, name: "handshake, both ends", unit: "us/handshake", baseline: "OpenSSL from C", result: result)
    }

    /// One handshake between two fresh associations, datagrams carried in memory.
    static func handshakeInMemory(_ clientCertificate: DTLSCertificate, _ serverCertificate: DTLSCertificate) throws {
        let client = try DTLSAssociation(certificate: clientCertificate,
                                         configuration: .init(role: .client, remoteFingerprints: [serverCertificate.fingerprint]))
        let server = try DTLSAssociation(certificate: serverCertificate,
                                         configuration: .init(role: .server, remoteFingerprints: [clientCertificate.fingerprint]))
        server.start(nowMs: 0)
        client.start(nowMs: 0)
        var moved = true
        while moved {
            moved = false
            for (source, target) in [(client, server), (server, client)] {
                source.drainDatagrams { datagram in
                    moved = true
                    _ = datagram.withUnsafeBytes { target.receive($0, nowMs: 0) }
                }
            }
        }
        guard client.keys != nil, server.keys != nil else { throw BenchmarkError.setup("handshake: \(client.state) / \(server.state)") }
    }

    private func certificate() throws {
        let count = 10
        var failure: String?
        let result = comparison.run(operations: count, ours: {
            for _ in 0..<count where (try? DTLSCertificate()) == nil { failure = "DTLSCertificate" }
        }, baseline: {
            for _ in 0..<count {
                guard let identity = cbase_dtls_identity_create() else {
                    failure = "C identity"
                    continue
                }
                cbase_dtls_identity_destroy(identity)
            }
        })
        if let failure { throw BenchmarkError.setup(failure) }
        report.add(group: Self.group, name: "certificate P-256", unit: "us/certificate", baseline: "OpenSSL from C", result: result)
    }

    /// Median ms from adding both calls to each side's first received RTP packet (the later
    /// side), audio already running on both engines, DTLS-SRTP and SDES calls alternating.
    private func connectionTime() throws {
        let (alice, bob) = try Self.runningEngines()
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        let aliceCertificate = try DTLSCertificate(), bobCertificate = try DTLSCertificate()
        var dtls: [Double] = [], sdes: [Double] = []
        for round in 0..<(2 * connections) {
            let byHandshake = round % 2 == 0
            let (aliceSocket, bobSocket) = try LoopbackSocketPair.make()
            let aliceCall: CallMedia, bobCall: CallMedia
            var aliceTransport = CallTransport(rtp: aliceSocket), bobTransport = CallTransport(rtp: bobSocket)
            if byHandshake {
                aliceCall = try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake)
                bobCall = try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake)
                aliceTransport.dtls = DTLSKeying(certificate: aliceCertificate,
                                                 configuration: .init(role: .client, remoteFingerprints: [bobCertificate.fingerprint]))
                bobTransport.dtls = DTLSKeying(certificate: bobCertificate,
                                               configuration: .init(role: .server, remoteFingerprints: [aliceCertificate.fingerprint]))
            } else {
                let aliceKey = SRTPKeyingMaterial.random(profile: .aeadAES128GCM), bobKey = SRTPKeyingMaterial.random(profile: .aeadAES128GCM)
                aliceCall = try CallMedia(configuration: MediaConfiguration(), sendingKey: aliceKey, receivingKey: bobKey)
                bobCall = try CallMedia(configuration: MediaConfiguration(), sendingKey: bobKey, receivingKey: aliceKey)
            }
            let elapsedMs = try Self.firstPacketMs(alice: (alice, aliceCall, aliceTransport), bob: (bob, bobCall, bobTransport),
                                                   what: byHandshake ? "DTLS" : "SDES")
            if byHandshake { dtls.append(elapsedMs) } else { sdes.append(elapsedMs) }
        }
        let ours = Comparison.median(dtls), baseline = Comparison.median(sdes)
        report.add(BenchmarkFigure(group: Self.group, name: "answer to first packet, loopback", value: ours, unit: "ms (median)",
                                   baseline: "the same calls keyed by SDES", baselineValue: baseline, ratio: ours / baseline))
        report.add(BenchmarkFigure(group: Self.group, name: "answer to first packet, loopback, worst", value: dtls.max() ?? 0, unit: "ms",
                                   baseline: "the same calls keyed by SDES", baselineValue: sdes.max() ?? 0, ratio: nil))
    }

    /// Median ms from the answer (each agent told the other's credentials and candidates,
    /// both calls added) to each side's first received RTP packet, over ICE and DTLS-SRTP —
    /// with aggressive nomination (the default) and with regular — against the same calls on
    /// plain sockets keyed by SDES (the three in turn).
    private func iceConnectionTime() throws {
        let (alice, bob) = try Self.runningEngines()
        defer {
            alice.shutdown()
            bob.shutdown()
        }
        let aliceCertificate = try DTLSCertificate(), bobCertificate = try DTLSCertificate()
        let nominations: [ICEConfiguration.Nomination] = [.aggressive, .regular]
        var ice: [ICEConfiguration.Nomination: [Double]] = [:], sdes: [Double] = []
        for round in 0..<(3 * connections) {
            let nomination = round % 3 < 2 ? nominations[round % 3] : nil
            let aliceCall: CallMedia, bobCall: CallMedia
            let aliceTransport: CallTransport, bobTransport: CallTransport
            var agents: [ICEAgent] = []
            var answer: () throws -> Void = {}
            if let nomination {
                var controlling = ICEConfiguration(role: .controlling), controlled = ICEConfiguration(role: .controlled)
                controlling.localAddresses = ["127.0.0.1"]
                controlled.localAddresses = ["127.0.0.1"]
                controlling.nomination = nomination
                controlled.nomination = nomination
                let aliceICE = try ICEAgent(configuration: controlling), bobICE = try ICEAgent(configuration: controlled)
                agents = [aliceICE, bobICE]
                // Gathered before the answer, as the offer and the answer carry the candidates.
                var aliceEvents: [ICEEvent] = [], bobEvents: [ICEEvent] = []
                try aliceICE.gatherCandidates()
                try bobICE.gatherCandidates()
                guard ICEPairing.wait(aliceICE, into: &aliceEvents, for: { $0 == .gatheringDone }),
                      ICEPairing.wait(bobICE, into: &bobEvents, for: { $0 == .gatheringDone })
                else { throw BenchmarkError.setup("ICE gathering") }
                aliceCall = try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake)
                bobCall = try CallMedia(configuration: MediaConfiguration(), protection: .srtpKeyedByHandshake)
                aliceTransport = CallTransport(ice: aliceICE, dtls: DTLSKeying(certificate: aliceCertificate,
                                                                               configuration: .init(role: .server, remoteFingerprints: [bobCertificate.fingerprint])))
                bobTransport = CallTransport(ice: bobICE, dtls: DTLSKeying(certificate: bobCertificate,
                                                                           configuration: .init(role: .client, remoteFingerprints: [aliceCertificate.fingerprint])))
                answer = { try ICEPairing.introduce(aliceICE, aliceEvents, bobICE, bobEvents) }
            } else {
                let (aliceSocket, bobSocket) = try LoopbackSocketPair.make()
                let aliceKey = SRTPKeyingMaterial.random(profile: .aeadAES128GCM), bobKey = SRTPKeyingMaterial.random(profile: .aeadAES128GCM)
                aliceCall = try CallMedia(configuration: MediaConfiguration(), sendingKey: aliceKey, receivingKey: bobKey)
                bobCall = try CallMedia(configuration: MediaConfiguration(), sendingKey: bobKey, receivingKey: aliceKey)
                aliceTransport = CallTransport(rtp: aliceSocket)
                bobTransport = CallTransport(rtp: bobSocket)
            }
            let elapsedMs = try Self.firstPacketMs(alice: (alice, aliceCall, aliceTransport), bob: (bob, bobCall, bobTransport),
                                                   what: nomination == nil ? "SDES" : "ICE", answer: answer)
            if let nomination { ice[nomination, default: []].append(elapsedMs) } else { sdes.append(elapsedMs) }
            for agent in agents { agent.close() }
        }
        let aggressive = ice[.aggressive] ?? [], regular = ice[.regular] ?? []
        let ours = Comparison.median(aggressive), baseline = Comparison.median(sdes)
        report.add(BenchmarkFigure(group: Self.group, name: "answer to first packet, ICE + DTLS", value: ours, unit: "ms (median)",
                                   baseline: "the same calls on sockets keyed by SDES", baselineValue: baseline, ratio: ours / baseline))
        report.add(BenchmarkFigure(group: Self.group, name: "answer to first packet, ICE + DTLS, worst", value: aggressive.max() ?? 0, unit: "ms",
                                   baseline: "the same calls on sockets keyed by SDES", baselineValue: sdes.max() ?? 0, ratio: nil))
        // The default measured: regular nomination waits for a check to succeed before it
        // nominates (one more round of checks before media).
        let regularMedian = Comparison.median(regular)
        report.add(BenchmarkFigure(group: Self.group, name: "answer to first packet, ICE + DTLS, regular nomination", value: regularMedian,
                                   unit: "ms (median)", baseline: "aggressive nomination (the default)", baselineValue: ours,
                                   ratio: regularMedian / ours))
    }

    /// Two engines on virtual devices (a tone, looped), audio running.
    private static func runningEngines() throws -> (VoiceEngine, VoiceEngine) {
        let tone = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: (0..<48_000).map { Int16(truncatingIfNeeded: ($0 % 96) * 300 - 14_000) })
        let alice = try VoiceEngine(configuration: EngineBenchmarks.configuration(device: .wavFile(tone, loops: true, recordsPlayback: false), maximumCalls: 2))
        let bob = try VoiceEngine(configuration: EngineBenchmarks.configuration(device: .wavFile(tone, loops: true, recordsPlayback: false), maximumCalls: 2))
        try alice.start()
        try bob.start()
        return (alice, bob)
    }

    /// Adds each call to its engine, runs `answer`, and returns the ms until both calls have
    /// received a packet; then removes both calls and lets the engines settle.
    private static func firstPacketMs(alice: (VoiceEngine, CallMedia, CallTransport), bob: (VoiceEngine, CallMedia, CallTransport),
                                      what: String, answer: () throws -> Void = {}) throws -> Double {
        let start = MonotonicClock.nanoseconds
        let aliceID = try alice.0.addCall(alice.1, transport: alice.2)
        let bobID = try bob.0.addCall(bob.1, transport: bob.2)
        try answer()
        let deadline = start + 10_000_000_000
        while (alice.1.statistics.inbound.packetsReceived == 0 || bob.1.statistics.inbound.packetsReceived == 0)
            && MonotonicClock.nanoseconds < deadline {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 500_000)
        }
        let elapsedMs = Double(MonotonicClock.nanoseconds - start) / 1e6
        guard MonotonicClock.nanoseconds < deadline else { throw BenchmarkError.setup("no media 10 s after the answer (\(what))") }
        try alice.0.removeCall(aliceID, sayingGoodbye: false)
        try bob.0.removeCall(bobID, sayingGoodbye: false)
        MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 100_000_000)
        return elapsedMs
    }
}
