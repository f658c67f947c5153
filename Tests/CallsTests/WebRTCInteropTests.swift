// SPDX-License-Identifier: Apache-2.0
import AudioDevicesTesting
import Locking
import MediaEngineTesting
import Foundation
import Testing
import TestSupport
import VoiceEngineKit

/// Issue 25: a call with a WebRTC peer — aiortc (PyPI, in the virtual environment
/// `scripts/aiortc-venv` makes; an outside peer, never vendored) — over ICE on loopback and
/// DTLS-SRTP, Opus both ways, SDP through files: aiortc offers and we answer, then we offer
/// and aiortc answers. Our side is the library as a softphone uses it: SessionDescription's
/// offer/answer, CallNegotiation's media and DTLS keying, an ICEAgent, a VoiceEngine.
/// Skipped when the environment is missing unless `VOICEENGINE_REQUIRE_AIORTC=1` (CI), and in
/// sanitizer builds. `VOICEENGINE_WEBRTC_RECORDINGS=DIR` keeps both sides' recordings there.
@Suite(.timeLimit(.minutes(4))) struct WebRTCInteropTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = ProcessInfo.processInfo.environment["VOICEENGINE_AIORTC_PYTHON"]
        ?? repository.appendingPathComponent(".build/aiortc-venv/bin/python").path
    static let required = ProcessInfo.processInfo.environment["VOICEENGINE_REQUIRE_AIORTC"] == "1"
    static var available: Bool { FileManager.default.isExecutableFile(atPath: python) }

    /// Our end: an engine on a virtual device speaking `speech` and recording, an ICE agent
    /// (controlled when we answer, controlling when we offer) on 127.0.0.1, a certificate.
    final class Softphone {
        let engine: VoiceEngine
        let device: VirtualAudioDevice
        let ice: ICEAgent
        let certificate: DTLSCertificate
        let events: EventLog

        init(speech: [Int16], role: ICEConfiguration.Role) throws {
            device = .wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: speech), pacing: .realtime,
                              recordingCapacitySamples: 48_000 * 30)
            var configuration = VoiceEngineConfiguration()
            configuration.device = AudioDeviceOpener(name: "virtual", backend: device)
            engine = try VoiceEngine(configuration: configuration)
            var iceConfiguration = ICEConfiguration(role: role)
            iceConfiguration.localAddresses = ["127.0.0.1"]
            ice = try ICEAgent(configuration: iceConfiguration)
            certificate = try DTLSCertificate()
            events = EventLog(engine)
        }

        /// What our SDP says of us once gathering is done: the address and port of our first
        /// candidate on the m= line, every candidate, end-of-candidates, our fingerprint.
        func localAudio() throws -> LocalAudio {
            var seen: [ICEEvent] = []
            try ice.gatherCandidates()
            #expect(ICEPairing.wait(ice, into: &seen) { $0 == .gatheringDone })
            let candidates = try ICEPairing.candidates(seen).map { try ICECandidate(parsing: $0) }
            let first = try #require(candidates.first)
            var local = LocalAudio(address: first.address, port: first.port)
            local.codecs = [.opus]
            local.keyExchange = .dtls(fingerprint: certificate.fingerprint)
            local.ice = try LocalICE(usernameFragment: ice.localCredentials.usernameFragment, password: ice.localCredentials.password,
                                     candidates: candidates, endOfCandidates: true)
            return local
        }

        /// Tells our agent the peer's ICE, and starts the call on the engine.
        func start(_ negotiated: NegotiatedAudio) throws {
            let remote = try #require(negotiated.remoteICE)
            try ice.setRemoteCredentials(usernameFragment: try #require(remote.usernameFragment), password: try #require(remote.password))
            for candidate in remote.candidates { try ice.addRemoteCandidate(candidate.attributeValue) }
            if remote.endOfCandidates { ice.remoteCandidatesComplete() }
            let media = try negotiated.makeCallMedia()
            try engine.addCall(media, transport: CallTransport(ice: ice, dtls: negotiated.dtlsKeying(certificate: certificate)))
            try engine.start()
        }

        var received: Int { engine.callIDs.first.flatMap { engine.statistics(of: $0) }?.inbound.packetsReceived ?? 0 }

        /// Our `speech` from the first frame we sent: the frames before the handshake set the
        /// keys were encoded and discarded (`discardedBeforeKeys`, one packet a frame), however
        /// long a loaded machine took over it, so the peer's recording starts there.
        func sent(_ speech: [Int16]) -> [Int16] {
            let discarded = engine.callIDs.first.flatMap { engine.statistics(of: $0) }?.transport.srtp.discardedBeforeKeys ?? 0
            return Array(speech.dropFirst(discarded * MediaConfiguration().samplesPerFrame))
        }

        func stop() {
            engine.shutdown()
            ice.close()
        }
    }

    /// A VoiceEngine's events, collected on a queue of their own.
    final class EventLog: Sendable {
        private final class Storage: Sendable {
            let events = Locked<[VoiceEngineEvent]>([])
        }
        private let storage = Storage()
        init(_ engine: VoiceEngine) {
            let storage = self.storage
            engine.setEventHandler(queue: DispatchQueue(label: "WebRTCInteropTests")) { event in storage.events.withLock { $0.append(event) } }
        }
        var all: [VoiceEngineEvent] { storage.events.withLock { $0 } }
    }

    /// aiortc's run: the process, its files.
    struct Peer {
        let process: Process
        let output: Pipe
        let errors: Pipe
        let directory: URL

        init(_ arguments: [String], in directory: URL) throws {
            self.directory = directory
            process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [repository.appendingPathComponent("scripts/aiortc-peer.py").path] + arguments
            output = Pipe()
            errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        /// Waits for the file at `path` to exist (written by rename: whole), up to `seconds`.
        static func waitForFile(_ path: URL, seconds: Double) -> String? {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if let text = try? String(contentsOf: path, encoding: .utf8), !text.isEmpty { return text }
                Thread.sleep(forTimeInterval: 0.02)
            }
            return nil
        }

        /// Its exit status and the JSON line it printed last.
        func finish() -> (status: Int32, report: [String: Any], errors: String) {
            process.waitUntilExit()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let last = text.split(separator: "\n").last.map(String.init) ?? "{}"
            let report = (try? JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any] ?? [:]
            return (process.terminationStatus, report, errorText)
        }
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webrtc-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func heard(_ path: URL) throws -> [Int16] { try WAVAudio(contentsOf: path).samples }

    /// How much of `reference`'s first 3 s `heard` carries (segmental correlation over lags up
    /// to 1 s). What aiortc heard of us is compared from the first frame we sent (`sent`);
    /// what we heard of aiortc, from the start of its file (its frames before the keys are not
    /// in our statistics). The bar below is 0.4: it tells speech that came through from silence, noise or
    /// wrong keys (all under 0.1), not how good it sounds — a call's first seconds through
    /// voice processing that is still learning there is no echo measure 0.55–0.9 here, and
    /// PESQ, measured outside the tests, judges quality (docs/performance.md).
    static func correlation(_ reference: [Int16], _ heard: [Int16]) -> Double {
        SignalComparison.segmentalCorrelation(reference: Array(reference.prefix(3 * 48_000)), signal: heard, segmentLength: 2_880, maxLag: 48_000)
    }

    static let alice = try! SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
    static let bob = try! SpeechFixture.samples(SpeechFixture.bob, sampleRate: 48_000)

    static func checkEnvironment() -> Bool {
        // A sanitizer build (the interposer steps aside there) runs several times slower than
        // real time: an outside peer in real time says nothing there; that run is for races.
        guard AllocationCounter.isCounting else { return false }
        if available { return true }
        #expect(!required, "VOICEENGINE_REQUIRE_AIORTC=1 but \(python) is missing: scripts/aiortc-venv")
        return false
    }

    @Test func aiortcOffersAndWeAnswer() throws {
        guard Self.checkEnvironment() else { return }
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let offerPath = directory.appendingPathComponent("offer.sdp"), answerPath = directory.appendingPathComponent("answer.sdp")
        let peer = try Peer(["offer", "--loopback", "--play", VectorFiles.url(SpeechFixture.alice).path,
                             "--record", directory.appendingPathComponent("aiortc-heard.wav").path,
                             "--offer-out", offerPath.path, "--answer-in", answerPath.path, "--seconds", "5", "--timeout", "60"], in: directory)
        let offerText = try #require(Peer.waitForFile(offerPath, seconds: 60), "aiortc wrote no offer")
        let offer = try SessionDescription(parsing: offerText)
        let us = try Softphone(speech: Self.bob, role: .controlled)
        defer { us.stop() }
        let (answer, negotiated) = try offer.answer(from: try us.localAudio()) { .random(profile: $0) }
        #expect(negotiated.dtls?.role == .client, "we answer actpass with active (RFC 5763)")
        let temporary = directory.appendingPathComponent("answer.tmp")
        try answer.formatted.write(to: temporary, atomically: true, encoding: .utf8)
        try FileManager.default.moveItem(at: temporary, to: answerPath)
        try us.start(negotiated)
        let (status, report, errors) = peer.finish()
        #expect(status == 0, "aiortc: \(errors.suffix(2_000))")
        #expect(us.events.all.contains { if case .dtlsConnected = $0 { true } else { false } }, "\(us.events.all)")
        #expect(us.received >= 150, "we received \(us.received) packets from aiortc")
        let aiortcReceived = ((report["inbound"] as? [String: Any])?["packetsReceived"] as? Int) ?? (report["packetsReceived"] as? Int) ?? -1
        #expect(aiortcReceived >= 150 || aiortcReceived == -1, "aiortc received \(aiortcReceived): \(report)")
        let weHeard = Self.correlation(Self.alice, us.device.recording().samples)
        let theyHeard = Self.correlation(us.sent(Self.bob), try Self.heard(directory.appendingPathComponent("aiortc-heard.wav")))
        #expect(weHeard > 0.4, "we heard aiortc's speech with correlation \(weHeard)")
        #expect(theyHeard > 0.4, "aiortc heard ours with correlation \(theyHeard)")
        try Self.keep(us, directory, as: "aiortc-offers")
    }

    /// Keeps both recordings under `VOICEENGINE_WEBRTC_RECORDINGS` (to score them with PESQ).
    static func keep(_ us: Softphone, _ directory: URL, as name: String) throws {
        guard let keep = ProcessInfo.processInfo.environment["VOICEENGINE_WEBRTC_RECORDINGS"] else { return }
        let folder = URL(fileURLWithPath: keep)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try WAVAudio(sampleRate: 48_000, channelCount: 1, samples: us.device.recording().samples)
            .wavData().write(to: folder.appendingPathComponent("\(name)-we-heard.wav"))
        try? FileManager.default.removeItem(at: folder.appendingPathComponent("\(name)-aiortc-heard.wav"))
        try FileManager.default.copyItem(at: directory.appendingPathComponent("aiortc-heard.wav"),
                                         to: folder.appendingPathComponent("\(name)-aiortc-heard.wav"))
    }

    @Test func weOfferAndAiortcAnswers() throws {
        guard Self.checkEnvironment() else { return }
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let offerPath = directory.appendingPathComponent("offer.sdp"), answerPath = directory.appendingPathComponent("answer.sdp")
        let us = try Softphone(speech: Self.alice, role: .controlling)
        defer { us.stop() }
        let offer = try SessionDescription.offer(from: try us.localAudio())
        let temporary = directory.appendingPathComponent("offer.tmp")
        try offer.formatted.write(to: temporary, atomically: true, encoding: .utf8)
        try FileManager.default.moveItem(at: temporary, to: offerPath)
        let peer = try Peer(["answer", "--loopback", "--play", VectorFiles.url(SpeechFixture.bob).path,
                             "--record", directory.appendingPathComponent("aiortc-heard.wav").path,
                             "--offer-in", offerPath.path, "--answer-out", answerPath.path, "--seconds", "5", "--timeout", "60"], in: directory)
        let answerText = try #require(Peer.waitForFile(answerPath, seconds: 60), "aiortc wrote no answer")
        let negotiated = try SessionDescription(parsing: answerText).negotiated(offer: offer)
        #expect(negotiated.dtls?.role == .server, "aiortc answers actpass with active")
        try us.start(negotiated)
        let (status, _, errors) = peer.finish()
        #expect(status == 0, "aiortc: \(errors.suffix(2_000))")
        #expect(us.received >= 150, "we received \(us.received) packets from aiortc")
        let weHeard = Self.correlation(Self.bob, us.device.recording().samples)
        let theyHeard = Self.correlation(us.sent(Self.alice), try Self.heard(directory.appendingPathComponent("aiortc-heard.wav")))
        #expect(weHeard > 0.4, "we heard aiortc's speech with correlation \(weHeard)")
        #expect(theyHeard > 0.4, "aiortc heard ours with correlation \(theyHeard)")
        try Self.keep(us, directory, as: "we-offer")
    }
}
