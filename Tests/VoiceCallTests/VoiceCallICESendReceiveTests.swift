// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import voicecall

/// `voicecall send --ice` and `receive --ice`, run as processes on loopback in real time, the
/// SDP passed through files: the receiver offers (controlling) and the sender answers
/// (controlled), or `call --ice` offers and the receiver answers; ICE (libnice) carries the
/// media — host candidates on 127.0.0.1, or relayed only through a coturn the test starts —
/// keyed by DTLS-SRTP over the pair, or by SDES keys in the SDP.
@Suite(.serialized) struct VoiceCallICESendReceiveTests {
    let voicecall = VoiceCallProcess.executable

    /// The line of `end`'s standard error that names the selected pair.
    static func selectedPair(_ end: (status: Int32, standardError: String)) throws -> Substring {
        try #require(end.standardError.split(separator: "\n").first { $0.contains("ICE: selected pair") }, "\(end.standardError)")
    }

    /// Non-trickle ICE in an SDP body: credentials, candidates, end-of-candidates.
    static func expectICE(in path: String, candidatesAre expect: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("a=ice-ufrag:") && text.contains("a=ice-pwd:") && text.contains("a=end-of-candidates"), "\(text)")
        #expect(!text.contains("a=ice-options:trickle"), "\(text)")
        #expect(text.contains("a=candidate:") && text.contains(expect), "\(text)")
    }

    /// `receive --ice --dtls --offer-out` and `send --ice --dtls --sdp`, with `extra` options
    /// each: the recording carries the speech sent, the receiver's reports reach the sender over
    /// the pair, and both ends of the pair each side selected are `expect`.
    func sendToReceive(_ extra: [String], in directory: URL, expect: String) throws {
        // 4 s, as the DTLS test's: long enough for the receiver's first report.
        let (input, reference) = try RealCallSupport.speech(seconds: 4, from: 1, in: directory)
        let output = directory.appendingPathComponent("out.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        let ice = ["--ice", "--dtls", "--listen", "127.0.0.1:0"] + extra
        let receiver = try BackgroundProcess(voicecall, ["receive"] + ice + ["--output", output.path, "--offer-out", offer,
                                                                             "--answer-in", answer, "--give-up", "20"])
        VoiceCallDTLSTests.waitFor(offer, from: receiver)
        let sender = try BackgroundProcess(voicecall, ["send"] + ice + ["--sdp", offer, "--answer-out", answer, "--input", input.path,
                                                                        "--give-up", "20"])
        let sent = sender.wait(timeoutSeconds: 40)
        let received = receiver.wait(timeoutSeconds: 40)
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(received.status == 0, "\(received.standardError)")
        try Self.expectICE(in: offer, candidatesAre: expect)
        try Self.expectICE(in: answer, candidatesAre: expect)
        #expect(received.standardError.contains("controlling (we offer)"), "\(received.standardError)")
        #expect(sent.standardError.contains("controlled (we answer)"), "\(sent.standardError)")
        for end in [sent, received] {
            #expect(end.standardError.contains("ICE connected; the DTLS-SRTP handshake starts"), "\(end.standardError)")
            #expect(end.standardError.contains("DTLS-SRTP connected"), "\(end.standardError)")
            let pair = try Self.selectedPair(end)
            #expect(pair.components(separatedBy: expect).count == 3, "both ends of the pair are \(expect): \(pair)")
        }
        let (correlation, seconds) = try RealCallSupport.similarity(of: output, to: reference)
        print("voicecall send --ice --dtls → receive --ice --dtls\(extra.isEmpty ? "" : " (relayed)"): correlation \(correlation), \(seconds) s")
        #expect(correlation > RealCallSupport.sameSpeech)
        #expect(abs(seconds - 4) < 0.5, "\(seconds) s")
        // RTCP both ways over the pair: the receiver's reports reached the sender.
        #expect(received.standardError.contains(/sent [1-9][0-9]* RTCP reports to the sender/), "\(received.standardError)")
        #expect(sent.standardError.contains("the receiver reported"), "\(sent.standardError)")
        // The sender's close_notify, over the pair, ended the receiver.
        #expect(received.standardError.contains(RealCallDTLS.closed), "\(received.standardError)")
    }

    /// Host candidates on 127.0.0.1 only (`--listen 127.0.0.1:0`): the pair is host ⇄ host.
    @Test func sendToReceiveOverICEWithHostCandidates() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try sendToReceive([], in: directory, expect: "127.0.0.1")
    }

    /// Both ends `--relay-only` through coturn on loopback: the only candidates are relayed,
    /// and the speech still arrives.
    @Test(.enabled(if: LoopbackTURNServer.enabled, "turnserver is missing (scripts/install-deps --aiortc; VOICEENGINE_REQUIRE_TURN=1 fails instead)"))
    func sendToReceiveRelayedOnlyThroughTURN() throws {
        let server = try LoopbackTURNServer()
        defer { server.stop() }
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try sendToReceive(try server.arguments(passwordFileIn: directory) + ["--relay-only"], in: directory, expect: "typ relay")
    }

    /// `call --ice` offers (SDES keys, no DTLS) and `receive --ice --sdp` answers, controlled:
    /// the recording carries the call's speech, keyed by the SDP's keys over the pair.
    @Test func receiveAnswersACallOverICEWithSDESKeys() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, reference) = try RealCallSupport.speech(seconds: 2, from: 1, in: directory)
        let output = directory.appendingPathComponent("out.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        // The call hears nothing back (receive sends no media): --seconds ends it, well before --give-up.
        let caller = try BackgroundProcess(voicecall, ["call", "--ice", "--listen", "127.0.0.1:0", "--input", input.path,
                                                       "--output", directory.appendingPathComponent("heard-by-caller.wav").path,
                                                       "--offer-out", offer, "--answer-in", answer, "--seconds", "5", "--give-up", "20"])
        VoiceCallDTLSTests.waitFor(offer, from: caller)
        let receiver = try BackgroundProcess(voicecall, ["receive", "--ice", "--listen", "127.0.0.1:0", "--output", output.path,
                                                         "--sdp", offer, "--answer-out", answer, "--give-up", "20"])
        let received = receiver.wait(timeoutSeconds: 40)
        let called = caller.wait(timeoutSeconds: 40)
        #expect(received.status == 0, "\(received.standardError)")
        #expect(called.status == 0, "\(called.standardError)")
        try Self.expectICE(in: offer, candidatesAre: "127.0.0.1")
        try Self.expectICE(in: answer, candidatesAre: "127.0.0.1")
        #expect(try String(contentsOfFile: answer, encoding: .utf8).contains("a=crypto:"), "keyed by SDES")
        #expect(received.standardError.contains("controlled (we answer)") && received.standardError.contains("receiving over ICE"),
                "\(received.standardError)")
        #expect(received.standardError.contains("ICE connected"), "\(received.standardError)")
        let pair = try Self.selectedPair(received)
        #expect(pair.components(separatedBy: "127.0.0.1").count == 3, "\(pair)")
        let (correlation, seconds) = try RealCallSupport.similarity(of: output, to: reference)
        print("voicecall call --ice → receive --ice --sdp (SDES): correlation \(correlation), \(seconds) s")
        #expect(correlation > RealCallSupport.sameSpeech)
        #expect(abs(seconds - 2) < 0.5, "\(seconds) s")
    }
}
