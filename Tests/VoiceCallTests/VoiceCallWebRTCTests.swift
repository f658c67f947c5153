// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import voicecall

/// Issue 25: `voicecall call --ice --dtls` answers a WebRTC peer's offer, and offers to it —
/// aiortc (PyPI, in the virtual environment `scripts/aiortc-venv` makes; an outside peer, never
/// vendored) — over ICE on loopback with DTLS-SRTP and Opus, WAV files both ways, the SDP
/// through files.
/// Skipped without the environment unless `VOICEENGINE_REQUIRE_AIORTC=1` (CI).
@Suite(.serialized) struct VoiceCallWebRTCTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let python = ProcessInfo.processInfo.environment["VOICEENGINE_AIORTC_PYTHON"]
        ?? repository.appendingPathComponent(".build/aiortc-venv/bin/python").path
    static let required = ProcessInfo.processInfo.environment["VOICEENGINE_REQUIRE_AIORTC"] == "1"

    @Test func aiortcOffersAndVoicecallAnswers() throws {
        try call(aiortcOffers: true)
    }

    /// The other way round: `voicecall call --ice --dtls` offers (controlling, `a=setup:actpass`)
    /// and aiortc answers.
    @Test func voicecallOffersAndAiortcAnswers() throws {
        try call(aiortcOffers: false)
    }

    /// aiortc plays 3 s of one excerpt, voicecall 3 s of another, over ICE on loopback; each
    /// recording must carry the other's speech.
    func call(aiortcOffers: Bool) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else {
            #expect(!Self.required, "VOICEENGINE_REQUIRE_AIORTC=1 but \(Self.python) is missing: scripts/aiortc-venv")
            return
        }
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (aliceIn, aliceSpeech) = try RealCallSupport.speech(seconds: 3, from: 1, in: directory, name: "alice.wav")
        let (bobIn, bobSpeech) = try RealCallSupport.speech(seconds: 3, from: 4, in: directory, name: "bob.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path, answer = directory.appendingPathComponent("answer.sdp").path
        let heardByAiortc = directory.appendingPathComponent("heard-by-aiortc.wav")
        let heardByVoicecall = directory.appendingPathComponent("heard-by-voicecall.wav")
        let peer = [Self.repository.appendingPathComponent("scripts/aiortc-peer.py").path, aiortcOffers ? "offer" : "answer", "--loopback",
                    "--play", aliceIn.path, "--record", heardByAiortc.path, "--seconds", "4", "--timeout", "60"]
        let ours = ["call", "--ice", "--dtls", "--listen", "127.0.0.1:0", "--input", bobIn.path, "--output", heardByVoicecall.path, "--seconds", "8"]
        let aiortc: BackgroundProcess, voicecall: BackgroundProcess
        if aiortcOffers {
            aiortc = try BackgroundProcess(URL(fileURLWithPath: Self.python), peer + ["--offer-out", offer, "--answer-in", answer])
            VoiceCallDTLSTests.waitFor(offer, from: aiortc)
            voicecall = try BackgroundProcess(VoiceCallProcess.executable, ours + ["--sdp", offer, "--answer-out", answer])
        } else {
            voicecall = try BackgroundProcess(VoiceCallProcess.executable, ours + ["--offer-out", offer, "--answer-in", answer])
            VoiceCallDTLSTests.waitFor(offer, from: voicecall)
            aiortc = try BackgroundProcess(URL(fileURLWithPath: Self.python), peer + ["--offer-in", offer, "--answer-out", answer])
        }
        let voicecallEnd = voicecall.wait(timeoutSeconds: 60)
        let aiortcEnd = aiortc.wait(timeoutSeconds: 60)
        #expect(aiortcEnd.status == 0, "aiortc: \(aiortcEnd.standardError.suffix(2_000))")
        #expect(voicecallEnd.status == 0, "voicecall: \(voicecallEnd.standardError.suffix(2_000))")
        #expect(voicecallEnd.standardError.contains("DTLS-SRTP connected"), "\(voicecallEnd.standardError)")
        let answerText = try String(contentsOfFile: answer, encoding: .utf8)
        // The answerer's DTLS role: voicecall takes active; aiortc (the offer said actpass) too.
        #expect(answerText.contains("a=setup:active") && answerText.contains("a=fingerprint:sha-256") && answerText.contains("a=ice-ufrag:"),
                "\(answerText)")
        if !aiortcOffers {
            let offerText = try String(contentsOfFile: offer, encoding: .utf8)
            #expect(offerText.contains("a=setup:actpass") && offerText.contains("UDP/TLS/RTP/SAVPF"), "\(offerText)")
        }
        let byVoicecall = try RealCallSupport.similarity(of: heardByVoicecall, to: aliceSpeech)
        let byAiortc = try RealCallSupport.similarity(of: heardByAiortc, to: bobSpeech)
        print("voicecall ⇄ aiortc (\(aiortcOffers ? "aiortc" : "voicecall") offers): aiortc → voicecall \(byVoicecall.correlation), voicecall → aiortc \(byAiortc.correlation)")
        #expect(byVoicecall.correlation > RealCallSupport.sameSpeech, "voicecall heard aiortc: \(byVoicecall)")
        #expect(byAiortc.correlation > RealCallSupport.sameSpeech, "aiortc heard voicecall: \(byAiortc)")
    }
}
