// SPDX-License-Identifier: Apache-2.0
import Foundation
import SRTP
import SessionDescription
import Testing
import TestSupport
@testable import voicecall

/// `voicecall call --ice`, run as processes on loopback in real time, the SDP passed through
/// files: ICE (libnice) carries the call — host candidates on 127.0.0.1, or relayed only
/// through a coturn the test starts — with DTLS-SRTP over the pair; wrong TURN credentials
/// and bad options (of `send` and `receive --ice` too) are refused with their exit status.
@Suite(.serialized) struct VoiceCallICETests {
    let voicecall = VoiceCallProcess.executable

    /// An offerer and an answerer with `extra` options each, WAV files both ways; each
    /// recording must carry the other's speech, and each side must have said `expect`.
    func callBothWays(_ extra: [String], in directory: URL, expect: String) throws {
        let call = try RealCallSupport.callBothWays(voicecall, options: ["--ice", "--dtls"] + extra, in: directory, timeoutSeconds: 30)
        RealCallSupport.expectHeardBothWays(call, "voicecall call --ice --dtls \(extra.isEmpty ? "" : "(relayed) ")⇄")
        // Non-trickle: credentials, the candidates and end-of-candidates in both bodies.
        for text in [try String(contentsOfFile: call.offer, encoding: .utf8), try String(contentsOfFile: call.answer, encoding: .utf8)] {
            #expect(text.contains("a=ice-ufrag:") && text.contains("a=ice-pwd:") && text.contains("a=end-of-candidates"), "\(text)")
            #expect(!text.contains("a=ice-options:trickle"), "\(text)")
            #expect(text.contains(expect), "\(text)")
        }
        #expect(call.alice.standardError.contains("controlling (we offer)") && call.bob.standardError.contains("controlled (we answer)"))
        for end in [call.alice, call.bob] {
            #expect(end.standardError.contains("ICE connected; the DTLS-SRTP handshake starts"), "\(end.standardError)")
            #expect(end.standardError.contains("DTLS-SRTP connected"), "\(end.standardError)")
            let pair = try #require(end.standardError.split(separator: "\n").first { $0.contains("ICE: selected pair") }, "\(end.standardError)")
            #expect(pair.components(separatedBy: expect).count == 3, "both ends of the pair are \(expect): \(pair)")
        }
    }

    /// Host candidates on 127.0.0.1 only (`--listen 127.0.0.1:0`): the pair is host ⇄ host.
    @Test func callOverICEWithHostCandidatesBothWays() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try callBothWays([], in: directory, expect: "127.0.0.1")
    }

    /// Both ends `--relay-only` through coturn on loopback: the only candidates are relayed,
    /// and the speech still goes both ways.
    @Test(.enabled(if: LoopbackTURNServer.enabled, "turnserver is missing (scripts/install-deps --aiortc; VOICEENGINE_REQUIRE_TURN=1 fails instead)"))
    func callRelayedOnlyThroughTURNBothWays() throws {
        let server = try LoopbackTURNServer()
        defer { server.stop() }
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try callBothWays(try server.arguments(passwordFileIn: directory) + ["--relay-only"], in: directory, expect: "typ relay")
    }

    /// A wrong TURN password with `--relay-only`: no relayed candidate, exit 9 saying so,
    /// without hanging (well within a minute, however loaded the machine; the refusal comes in
    /// seconds) — no offer written, the password not printed.
    @Test(.enabled(if: LoopbackTURNServer.enabled, "turnserver is missing (scripts/install-deps --aiortc; VOICEENGINE_REQUIRE_TURN=1 fails instead)"))
    func aWrongTURNPasswordFailsWithoutHanging() throws {
        let server = try LoopbackTURNServer()
        defer { server.stop() }
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, _) = try RealCallSupport.speech(seconds: 0.5, in: directory)
        let passwordFile = directory.appendingPathComponent("turn-password").path
        try "not-the-password-42".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let offer = directory.appendingPathComponent("offer.sdp").path
        let started = Date()
        let caller = try BackgroundProcess(voicecall, ["call", "--ice", "--dtls", "--listen", "127.0.0.1:0", "--input", input.path,
                                                       "--output", directory.appendingPathComponent("out.wav").path,
                                                       "--offer-out", offer, "--answer-in", directory.appendingPathComponent("answer.sdp").path]
                                                      + server.arguments + ["--turn-password-file", passwordFile, "--relay-only", "--give-up", "15"])
        let end = caller.wait(timeoutSeconds: 90)
        let seconds = Date().timeIntervalSince(started)
        #expect(end.status == 9, "\(end.standardError)")
        #expect(end.standardError.contains("ICE: no candidate: the TURN server 127.0.0.1:\(server.port) gave no relayed candidate: it refused the credentials of \"voiceengine\""), "\(end.standardError)")
        #expect(seconds < 60, "took \(seconds) s")
        #expect(!FileManager.default.fileExists(atPath: offer), "no offer without a candidate")
        #expect(!end.standardError.contains("not-the-password"))
    }

    /// Options that cannot work: exit 2 (usage) or 7 (an unreadable password file), each
    /// saying what to change, never a trap, never the password.
    @Test func badICEOptionsAreRefused() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, _) = try RealCallSupport.speech(seconds: 0.5, in: directory)
        let empty = directory.appendingPathComponent("empty").path
        try "\n".write(toFile: empty, atomically: true, encoding: .utf8)
        let long = directory.appendingPathComponent("long").path
        try String(repeating: "x", count: 513).write(toFile: long, atomically: true, encoding: .utf8)
        let good = directory.appendingPathComponent("good").path
        try "sekrit-password-77".write(toFile: good, atomically: true, encoding: .utf8)
        let files = ["--input", input.path, "--output", directory.appendingPathComponent("out.wav").path,
                     "--offer-out", directory.appendingPathComponent("offer.sdp").path, "--answer-in", directory.appendingPathComponent("answer.sdp").path]
        let call = ["call", "--listen", "127.0.0.1:0"] + files
        let crypto = "AES_CM_128_HMAC_SHA1_80 inline:" + RealCallSupport.base64(RealCallSupport.keyAndSalt(seed: 31))
        let output = directory.appendingPathComponent("out.wav").path
        let offerOut = directory.appendingPathComponent("offer.sdp").path
        let turn = ["--turn", "127.0.0.1:3478", "--turn-user", "u"]
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (call + ["--stun", "127.0.0.1:3478"], 2, "give --ice too"),
            (call + ["--relay-only"], 2, "give --ice too"),
            (call + ["--ice", "--relay-only"], 2, "--relay-only needs --turn HOST:PORT"),
            (call + ["--ice", "--turn", "127.0.0.1:3478"], 2, "--turn needs --turn-user NAME and --turn-password-file FILE"),
            (call + ["--ice", "--turn-user", "u", "--turn-password-file", good], 2, "give --turn HOST:PORT too"),
            (call + ["--ice", "--stun", "127.0.0.1:0"], 2, "--stun needs a port 1…65535"),
            (call + ["--ice", "--stun", "127.0.0.1:65536"], 2, "--stun needs a port 1…65535"),
            (call + ["--ice", "--stun", "127.0.0.1:99999999999999999999"], 2, "--stun needs a port 1…65535"),
            (call + ["--ice", "--stun", "127.0.0.1"], 2, "--stun needs HOST:PORT"),
            (call + ["--ice", "--turn", ":3478", "--turn-user", "u", "--turn-password-file", good], 2, "--turn needs a host name or IP address"),
            (call + ["--ice", "--stun", "no-such-host.invalid:3478"], 2, "--stun no-such-host.invalid: the name does not resolve"),
            (call + ["--ice"] + turn + ["--turn-password-file", directory.appendingPathComponent("missing").path], 7, "cannot be read"),
            (call + ["--ice"] + turn + ["--turn-password-file", empty], 2, "is empty"),
            (call + ["--ice"] + turn + ["--turn-password-file", long], 2, "holds more than 512 bytes"),
            (call + ["--ice", "--turn", "127.0.0.1:3478", "--turn-user", "", "--turn-password-file", good], 2, "--turn-user must be 1…512 bytes"),
            (["call", "--ice", "--listen", "127.0.0.1:40000"] + files, 2, "give --listen 127.0.0.1:0"),
            // send and receive take --ice only with SDP, which carries ICE's credentials and candidates.
            (["send", "--ice", "--to", "127.0.0.1:9", "--crypto", crypto, "--input", input.path], 2, "send --ice needs --sdp FILE"),
            (["send", "--stun", "127.0.0.1:3478", "--sdp", "-", "--input", input.path], 2, "give --ice too"),
            (["send", "--ice", "--listen", "127.0.0.1:40000", "--sdp", "-", "--input", input.path], 2, "give --listen 127.0.0.1:0"),
            (["receive", "--ice", "--listen", "127.0.0.1:0", "--crypto", crypto, "--output", output], 2, "receive --ice needs --sdp FILE"),
            (["receive", "--ice", "--listen", "127.0.0.1:40000", "--output", output, "--offer-out", offerOut], 2, "give --listen 127.0.0.1:0"),
            (["receive", "--ice", "--relay-only", "--listen", "127.0.0.1:0", "--output", output, "--offer-out", offerOut], 2,
             "--relay-only needs --turn HOST:PORT"),
        ]
        // An offer made without ICE, answered with --ice: refused (exit 3) before any answer is written.
        let plainOffer = directory.appendingPathComponent("plain-offer.sdp").path
        try SessionDescription.offer(from: LocalAudio(address: "127.0.0.1", port: 9),
                                     keys: [SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)]).formatted
            .write(toFile: plainOffer, atomically: true, encoding: .utf8)
        let answer = directory.appendingPathComponent("answer-to-plain.sdp").path
        let answering = ["call", "--ice", "--listen", "127.0.0.1:0", "--input", input.path, "--output", directory.appendingPathComponent("out.wav").path,
                         "--sdp", plainOffer, "--answer-out", answer]
        let sending = ["send", "--ice", "--listen", "127.0.0.1:0", "--input", input.path, "--sdp", plainOffer, "--answer-out", answer]
        let receiving = ["receive", "--ice", "--listen", "127.0.0.1:0", "--output", output, "--sdp", plainOffer, "--answer-out", answer]
        let withoutICE = [answering, sending, receiving].map { ($0, Int32(3), "the peer's SDP carries no a=ice-ufrag/a=ice-pwd") }
        for (arguments, status, message) in cases + withoutICE {
            let result = try VoiceCallProcess.run(arguments)
            #expect(result.exited && result.status == status, "\(arguments): \(result.status) \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            #expect(!result.standardError.contains("sekrit"), "\(arguments) printed the password: \(result.standardError)")
            #expect(!result.standardError.contains(crypto.suffix(12)), "\(arguments) printed the key: \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: answer), "no answer to an offer without ICE")
        #expect(!FileManager.default.fileExists(atPath: offerOut), "no offer from options that were refused")
    }

    /// The options as parsed: the servers, the user, the file — and the role's roles.
    @Test func iceOptionsParse() throws {
        var arguments = CommandArguments(["--listen", "127.0.0.1:0", "--input", "a.wav", "--output", "b.wav", "--ice", "--dtls",
                                          "--stun", "[::1]:3478", "--turn", "turn.example.org:3479", "--turn-user", "me",
                                          "--turn-password-file", "/run/secret", "--relay-only"])
        let options = try RealCallOptions.parse(.call, &arguments)
        let ice = try #require(options.ice)
        #expect(ice.stun == .init(host: "::1", port: 3478))
        #expect(ice.turn == .init(host: "turn.example.org", port: 3479))
        #expect(ice.turnUser == "me" && ice.turnPasswordFile == "/run/secret" && ice.relayOnly)
        var plain = CommandArguments(["--listen", "127.0.0.1:0", "--input", "a.wav", "--output", "b.wav"])
        #expect(try RealCallOptions.parse(.call, &plain).ice == nil)
        #expect(RealCallFailure.noCandidates("x").exitStatus == 9)
        // send (answering) and receive (offering or answering) take them alike.
        var send = CommandArguments(["--input", "a.wav", "--sdp", "offer.sdp", "--ice", "--turn", "127.0.0.1:3478", "--turn-user", "me",
                                     "--turn-password-file", "/run/secret", "--relay-only"])
        let sending = try RealCallOptions.parse(.send, &send)
        #expect(sending.ice?.relayOnly == true && sending.ice?.turn == .init(host: "127.0.0.1", port: 3478) && !sending.offers)
        var receive = CommandArguments(["--listen", "127.0.0.1:0", "--output", "b.wav", "--offer-out", "offer.sdp", "--ice",
                                        "--stun", "127.0.0.1:3478"])
        let receiving = try RealCallOptions.parse(.receive, &receive)
        #expect(receiving.ice?.stun == .init(host: "127.0.0.1", port: 3478) && receiving.offers)
        var answering = CommandArguments(["--listen", "[::]:0", "--output", "b.wav", "--sdp", "offer.sdp", "--ice"])
        #expect(try RealCallOptions.parse(.receive, &answering).ice == RealCallICEOptions())
    }
}
