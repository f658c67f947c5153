// SPDX-License-Identifier: Apache-2.0
import Foundation
import SessionDescription
import Testing
import Transport
@testable import voicecall

/// Issue 15, "Real calls": `voicecall receive`, `send` and `call` run as processes over UDP
/// on loopback, in real time, and every failure a person can act on ends with its own exit
/// status and a message that never shows a key.
@Suite(.serialized) struct RealCallTests {
    let voicecall = VoiceCallProcess.executable

    @Test func sendToReceiveCarriesTheSpeech() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 4 s: the receiver's first RTCP report comes 1–3 s after the first packet (RFC 3550's
        // initial interval, randomized), and the sender must still be there to take it.
        let (input, reference) = try RealCallSupport.speech(seconds: 4, from: 1, in: directory)
        let output = directory.appendingPathComponent("out.wav")
        let learnt = directory.appendingPathComponent("path.json")
        let crypto = "AES_CM_128_HMAC_SHA1_80 inline:" + RealCallSupport.base64(RealCallSupport.keyAndSalt(seed: 15))
        let receiver = try BackgroundProcess(voicecall, ["receive", "--listen", "127.0.0.1:0", "--crypto", crypto,
                                                         "--output", output.path, "--give-up", "60", "--learnt-delays", learnt.path])
        let port = try RealCallSupport.listeningPort(of: receiver)
        let sender = try BackgroundProcess(voicecall, ["send", "--to", "127.0.0.1:\(port)", "--crypto", crypto, "--input", input.path])
        let sent = sender.wait(timeoutSeconds: 15)
        let received = receiver.wait(timeoutSeconds: 15)
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(received.status == 0, "\(received.standardError)")
        let (correlation, seconds) = try RealCallSupport.similarity(of: output, to: reference)
        print("voicecall send → receive: correlation \(correlation), \(seconds) s")
        #expect(correlation > RealCallSupport.sameSpeech)
        #expect(abs(seconds - 4) < 0.5)
        #expect(received.standardError.contains("0 failed SRTP authentication"))
        // The receive-only leg reports back to where the packets came from, so the sender
        // learns its loss and jitter (its FEC and bitrate plans depend on them).
        #expect(received.standardError.contains(/sent [1-9][0-9]* RTCP reports to the sender/), "\(received.standardError)")
        #expect(sent.standardError.contains("the receiver reported 0 packets lost"), "\(sent.standardError)")
        // How late the listener heard it, in the receiver's report (its value depends on the
        // machine's scheduling: only that it is a delay the buffer can keep).
        let played = try #require(received.standardError.firstMatch(of: /played at a mean jitter-buffer delay of ([0-9]+) ms, ([0-9]+) packets too late/),
                                  "\(received.standardError)")
        #expect((1...1_000).contains(Int(played.1)!), "\(played.0)")
        // What the receiver's jitter buffer learnt of the path, kept for the next call on it.
        #expect(try LearntDelaysFile.read(learnt.path) != nil)
    }

    /// Two `voicecall call` processes, the offer and answer passed through files: each records
    /// the other's speech.
    @Test func callOfferAnswerThroughFilesBothWays() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let call = try RealCallSupport.callBothWays(voicecall, options: [], in: directory)
        RealCallSupport.expectHeardBothWays(call, "voicecall call ⇄ call")
        let offerText = try String(contentsOfFile: call.offer, encoding: .utf8)
        #expect(offerText.contains("a=rtcp-mux") && offerText.contains("opus/48000/2"))
        // Neither heard itself: the streams are not crossed.
        #expect(call.bobHeardHimself < 0.5)
        // Status lines name the suite, never the key (which only the SDP files hold).
        let key = try #require(offerText.split(separator: "inline:").dropFirst().first?.prefix(12))
        #expect(!call.alice.standardError.contains(key) && !call.bob.standardError.contains(key))
    }

    /// Each failure: its exit status, and a message a person can act on.
    @Test func failuresHaveTheirOwnExitStatus() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, _) = try RealCallSupport.speech(seconds: 0.5, in: directory)
        let key = RealCallSupport.base64(RealCallSupport.keyAndSalt(seed: 7))
        let crypto = "AES_CM_128_HMAC_SHA1_80 inline:\(key)"
        let output = directory.appendingPathComponent("out.wav").path
        // Something listens on `port` for the port-in-use case (until this test ends).
        let holder = try BackgroundProcess(voicecall, ["receive", "--listen", "127.0.0.1:0", "--crypto", crypto,
                                                       "--output", output, "--give-up", "600"])
        defer { _ = holder.wait(timeoutSeconds: 0) }
        let port = try RealCallSupport.listeningPort(of: holder)
        let closedPort = RealCallSupport.freePort()
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["receive", "--listen", "127.0.0.1:\(port)", "--crypto", crypto, "--output", output + "2"], 4, "is in use by another program"),
            (["receive", "--listen", "192.0.2.1:5004", "--crypto", crypto, "--output", output + "2"], 4, "is not an address of this host"),
            (["receive", "--listen", "127.0.0.1:0", "--crypto", "AES_CM_128_HMAC_SHA1_80 inline:\(key.dropLast(4))", "--output", output],
             3, "--crypto: a=crypto: key-salt is 27 bytes, suite needs 30"),
            (["receive", "--listen", "127.0.0.1:0", "--crypto", "AES_CM_128_HMAC_SHA1_99 inline:\(key)", "--output", output],
             3, "unsupported crypto-suite AES_CM_128_HMAC_SHA1_99"),
            (["receive", "--listen", "127.0.0.1:0", "--crypto", crypto, "--output", output, "--give-up", "0.5"],
             6, "no SRTP packet that authenticates arrived in 0.5 s"),
            (["send", "--to", "127.0.0.1:\(closedPort)", "--crypto", crypto, "--input", input.path, "--give-up", "0.3"],
             6, "refused every packet (ICMP port, host or network unreachable)"),
            (["call", "--listen", "127.0.0.1:0", "--device", "voicecall-test-no-such-device"], 5, "cannot open \"voicecall-test-no-such-device\""),
            (["send", "--to", "127.0.0.1:9", "--crypto", crypto, "--input", directory.appendingPathComponent("missing.wav").path],
             7, "cannot read --input"),
            (["receive", "--listen", "127.0.0.1:0", "--crypto", crypto, "--output", "/nonexistent-dir/out.wav"], 7, "cannot write --output"),
            (["send", "--sdp", directory.appendingPathComponent("missing.sdp").path, "--input", input.path], 7, "cannot read SDP file"),
            (["receive", "--listen", "127.0.0.1:99999", "--crypto", crypto, "--output", output], 2, "--listen needs a port 0…65535"),
            (["send", "--to", "localhost:5004", "--crypto", crypto, "--input", input.path], 2, "--to needs a numeric IPv4 or [IPv6] address"),
            (["send", "--to", "127.0.0.1:5004", "--crypto", crypto, "--input", input.path, "--payload-type", "1e300"],
             2, "--payload-type needs an integer in 96…127, got \"1e300\""),
            (["send", "--to", "127.0.0.1:5004", "--input", input.path], 2, "send needs --to HOST:PORT and --crypto"),
            // A mistyped option: its value (here the key) is counted, not shown.
            (["send", "--to", "127.0.0.1:5004", "--crypt", crypto, "--input", input.path], 2, "unknown option --crypt, 1 unexpected value (not shown)"),
        ]
        for (arguments, status, message) in cases {
            let result = try VoiceCallProcess.run(arguments)
            #expect(result.exited && result.status == status, "\(arguments): \(result.status) \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            #expect(!result.standardError.contains(key.prefix(8)), "\(arguments) printed key material: \(result.standardError)")
        }
    }

    @Test func helpDocumentsEveryExitStatus() throws {
        for command in ["receive", "send", "call"] {
            let usage = switch command {
            case "receive": ReceiveCommand.usage
            case "send": SendCommand.usage
            default: CallCommand.usage
            }
            for status in 0...8 { #expect(usage.contains("\n  \(status)  "), "\(command) --help lacks exit status \(status)") }
        }
    }
}

/// `RealCallOptions.parse` without a process: what each role takes and refuses.
@Suite struct RealCallOptionsTests {
    static let key = "AES_CM_128_HMAC_SHA1_80 inline:" + RealCallSupport.base64(RealCallSupport.keyAndSalt(seed: 3))

    func parse(_ role: RealCallOptions.Role, _ words: [String]) -> Result<RealCallOptions, RealCallFailure> {
        var arguments = CommandArguments(words)
        do { return .success(try RealCallOptions.parse(role, &arguments)) } catch { return .failure(error) }
    }

    @Test func receiveTakesListenCryptoOutputAndSeconds() throws {
        let options = try parse(.receive, ["--listen", "[::1]:5004", "--crypto", Self.key, "--output", "o.wav",
                                           "--seconds", "2.5", "--payload-type", "96"]).get()
        #expect(options.listen?.host == "::1" && options.listen?.port == 5004)
        #expect(options.crypto?.profile == .aesCM128HmacSha1_80)
        #expect(options.payloadType == 96)
        #expect(options.seconds == 2.5)
        // The tag may be given, or a whole a=crypto line.
        #expect(try parse(.receive, ["--listen", "0.0.0.0:1", "--crypto", "a=crypto:5 " + Self.key, "--output", "o"]).get().crypto?.tag == 5)
    }

    @Test func sendTakesSDPOrAddressAndKeyNotBoth() throws {
        let options = try parse(.send, ["--sdp", "-", "--input", "i.wav", "--bitrate", "32000", "--ssrc", "4294967295"]).get()
        #expect(options.sdp == "-" && options.bitrate == 32_000 && options.ssrc == .max)
        guard case .failure(.usage(let text)) = parse(.send, ["--sdp", "-", "--to", "127.0.0.1:1", "--crypto", Self.key, "--input", "i"]) else {
            Issue.record("accepted both --sdp and --to/--crypto"); return
        }
        #expect(text.contains("not both"))
        #expect(parse(.send, ["--to", "127.0.0.1:1", "--crypto", Self.key, "--input", "i", "--ssrc", "4294967296"])
            == .failure(.usage("--ssrc needs an integer in 0…4294967295, got \"4294967296\"")))
        // receive takes no --bitrate: an unknown flag there.
        #expect(parse(.receive, ["--listen", "127.0.0.1:1", "--crypto", Self.key, "--output", "o", "--bitrate", "9000"])
            == .failure(.usage("unknown option --bitrate, 1 unexpected value (not shown)")))
    }

    @Test func codecByNameAndOpusOnlyPayloadType() throws {
        let options = try parse(.send, ["--to", "127.0.0.1:1", "--crypto", Self.key, "--input", "i", "--codec", "G722"]).get()
        #expect(options.codec == .g722)
        let configuration = try RealCallSetup.configuration(options, profile: .aesCM128HmacSha1_80)
        #expect(configuration.codec == .g722 && configuration.payloadType == 9 && configuration.telephoneEventClockRate == 8_000)
        #expect(parse(.receive, ["--listen", "127.0.0.1:1", "--crypto", Self.key, "--output", "o", "--codec", "speex"])
            == .failure(.usage("--codec speex is not one of opus, pcmu, pcma, g722")))
        #expect(parse(.receive, ["--listen", "127.0.0.1:1", "--crypto", Self.key, "--output", "o", "--codec", "pcmu", "--payload-type", "96"])
            == .failure(.usage("--payload-type is Opus's: PCMU uses its static payload type")))
        #expect(RealCallSetup.localAudio(options, socket: UDPEndpoint(host: "0.0.0.0", port: 9)).codecs == [.g722])
    }

    @Test func callNeedsADeviceOrBothFiles() {
        #expect((try? parse(.call, ["--listen", "127.0.0.1:1", "--device", "default"]).get())?.device == "default")
        #expect(parse(.call, ["--listen", "127.0.0.1:1", "--input", "i.wav"])
            == .failure(.usage("call needs --device NAME, or --input IN.wav and --output OUT.wav")))
        #expect(parse(.call, ["--listen", "127.0.0.1:1", "--device", "d", "--input", "i", "--output", "o"])
            == .failure(.usage("call takes --device NAME or --input/--output files, not both")))
        #expect(parse(.call, ["--device", "d"]) == .failure(.usage("call needs --listen HOST:PORT")))
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.1:", ":5004", "[::1]5004", "::1:5004", "1.2.3.4:-1", "host:5004"])
    func badEndpointsAreUsageErrors(text: String) {
        guard case .failure(let failure) = parse(.receive, ["--listen", text, "--crypto", Self.key, "--output", "o"]) else {
            Issue.record("accepted --listen \(text)"); return
        }
        #expect(failure.exitStatus == 2, "\(failure)")
    }

    @Test func badCryptoNeverEchoesTheKey() {
        let secret = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVpbXF1eX2BhYmNk"  // 36 bytes: too long for the suite
        guard case .failure(let failure) = parse(.receive, ["--listen", "127.0.0.1:1", "--crypto", "AES_CM_128_HMAC_SHA1_80 inline:\(secret)", "--output", "o"]) else {
            Issue.record("accepted a wrong-length key"); return
        }
        #expect(failure.exitStatus == 3)
        #expect(!"\(failure)".contains(secret.prefix(6)))
        guard case .failure(let garbled) = parse(.receive, ["--listen", "127.0.0.1:1", "--crypto", secret, "--output", "o"]) else {
            Issue.record("accepted a line without suite"); return
        }
        #expect(!"\(garbled)".contains(secret.prefix(6)), "\(garbled)")
    }
}
