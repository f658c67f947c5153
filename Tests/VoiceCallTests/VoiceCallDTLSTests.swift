// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import SessionDescription
import Testing
import TestSupport
import Transport
@testable import voicecall

/// `voicecall send`, `receive` and `call` keyed by DTLS-SRTP (`--dtls`), run as processes over
/// UDP on loopback in real time, the SDP passed through files: the handshake keys the media,
/// a forged fingerprint stops it before any media, and what cannot work is refused with its
/// exit status.
@Suite(.serialized) struct VoiceCallDTLSTests {
    let voicecall = VoiceCallProcess.executable

    /// Waits (bounded, for a stuck child) until `path` exists or `process` has ended.
    static func waitFor(_ path: String, from process: BackgroundProcess) {
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: path) && process.process.isRunning && Date() < deadline { usleep(20_000) }
    }

    /// The `a=fingerprint` value of an SDP body.
    static func fingerprint(in sdp: String) -> String? {
        sdp.split(whereSeparator: \.isNewline).first { $0.hasPrefix("a=fingerprint:") }.map { String($0.dropFirst("a=fingerprint:".count)) }
    }

    /// `sdp` with its fingerprint's first byte changed: the certificate it names is no longer
    /// the one the peer holds.
    static func forged(_ sdp: String) throws -> String {
        let value = try #require(fingerprint(in: sdp))
        let digest = try #require(value.split(separator: " ").last)
        let forgedDigest = (digest.hasPrefix("00") ? "01" : "00") + digest.dropFirst(2)
        return sdp.replacingOccurrences(of: value, with: value.replacingOccurrences(of: digest, with: forgedDigest))
    }

    /// `receive --dtls` offers, `send --dtls` answers: the handshake completes on the media
    /// port and the recording carries the speech sent, as the SDES test's does; the receiver's
    /// reports come back under the handshake's keys; the sender's close_notify ends the receiver.
    @Test func sendToReceiveKeyedByDTLSCarriesTheSpeech() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // 4 s, as sendToReceiveCarriesTheSpeech: long enough for the receiver's first report.
        let (input, reference) = try RealCallSupport.speech(seconds: 4, from: 1, in: directory)
        let output = directory.appendingPathComponent("out.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        let receiver = try BackgroundProcess(voicecall, ["receive", "--dtls", "--listen", "127.0.0.1:0", "--output", output.path,
                                                         "--offer-out", offer, "--answer-in", answer, "--give-up", "60"])
        Self.waitFor(offer, from: receiver)
        let sender = try BackgroundProcess(voicecall, ["send", "--dtls", "--sdp", offer, "--answer-out", answer, "--input", input.path])
        let sent = sender.wait(timeoutSeconds: 20)
        let received = receiver.wait(timeoutSeconds: 20)
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(received.status == 0, "\(received.standardError)")
        let offerText = try String(contentsOfFile: offer, encoding: .utf8)
        let answerText = try String(contentsOfFile: answer, encoding: .utf8)
        // Keyed by the handshake alone: certificates' fingerprints in the SDP, no key.
        #expect(offerText.contains("UDP/TLS/RTP/SAVPF") && offerText.contains("a=setup:actpass") && !offerText.contains("a=crypto"), "\(offerText)")
        #expect(answerText.contains("a=setup:active") && !answerText.contains("a=crypto"), "\(answerText)")
        // Each side met the certificate the other's SDP named.
        let sendersFingerprint = try #require(Self.fingerprint(in: answerText))
        let receiversFingerprint = try #require(Self.fingerprint(in: offerText))
        #expect(received.standardError.contains("DTLS-SRTP connected: AEAD_AES_128_GCM; the peer's certificate \(sendersFingerprint)"), "\(received.standardError)")
        #expect(sent.standardError.contains("DTLS-SRTP connected: AEAD_AES_128_GCM; the peer's certificate \(receiversFingerprint)"), "\(sent.standardError)")
        let (correlation, seconds) = try RealCallSupport.similarity(of: output, to: reference)
        print("voicecall send --dtls → receive --dtls: correlation \(correlation), \(seconds) s")
        #expect(correlation > RealCallSupport.sameSpeech)
        #expect(abs(seconds - 4) < 0.5)
        #expect(received.standardError.contains("0 failed SRTP authentication"), "\(received.standardError)")
        #expect(sent.standardError.contains("the receiver reported 0 packets lost"), "\(sent.standardError)")
        #expect(received.standardError.contains(RealCallDTLS.closed), "\(received.standardError)")
    }

    /// Two `voicecall call --dtls` processes, the offer and answer through files: each records
    /// the other's speech.
    @Test func callKeyedByDTLSBothWays() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let call = try RealCallSupport.callBothWays(voicecall, options: ["--dtls"], in: directory)
        RealCallSupport.expectHeardBothWays(call, "voicecall call --dtls ⇄ call --dtls")
        #expect(call.alice.standardError.contains("DTLS-SRTP as server") && call.bob.standardError.contains("DTLS-SRTP as client"))
        #expect(call.alice.standardError.contains("DTLS-SRTP connected") && call.bob.standardError.contains("DTLS-SRTP connected"))
    }

    /// The sender's answer reaches the receiver with another fingerprint (its first byte
    /// changed on the way): the receiver refuses the certificate the sender shows, both exit 8
    /// saying why, and no media is sent or recorded.
    @Test func aForgedFingerprintInTheAnswerStopsTheCallBeforeAnyMedia() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, _) = try RealCallSupport.speech(seconds: 2, in: directory)
        let output = directory.appendingPathComponent("out.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path
        let written = directory.appendingPathComponent("answer-as-written.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        let receiver = try BackgroundProcess(voicecall, ["receive", "--dtls", "--listen", "127.0.0.1:0", "--output", output.path,
                                                         "--offer-out", offer, "--answer-in", answer, "--give-up", "20"])
        Self.waitFor(offer, from: receiver)
        let sender = try BackgroundProcess(voicecall, ["send", "--dtls", "--sdp", offer, "--answer-out", written, "--input", input.path,
                                                       "--give-up", "20"])
        Self.waitFor(written, from: sender)
        let genuine = try String(contentsOfFile: written, encoding: .utf8)
        let forged = try Self.forged(genuine)
        #expect(forged != genuine)
        try forged.write(toFile: answer, atomically: true, encoding: .utf8)
        let received = receiver.wait(timeoutSeconds: 30)
        let sent = sender.wait(timeoutSeconds: 30)
        #expect(received.status == 8, "\(received.standardError)")
        #expect(received.standardError.contains("DTLS-SRTP handshake failed: the certificate 127.0.0.1:"), "\(received.standardError)")
        #expect(received.standardError.contains("matches no a=fingerprint of its SDP (\(try #require(Self.fingerprint(in: forged))))"), "\(received.standardError)")
        #expect(received.standardError.contains("no media was sent or played"))
        #expect(!received.standardError.contains("DTLS-SRTP connected"))
        #expect(!FileManager.default.fileExists(atPath: output.path), "nothing was played, so nothing was recorded")
        // The sender learns it from the receiver's alert, and sent no media.
        #expect(sent.status == 8, "\(sent.standardError)")
        #expect(sent.standardError.contains("DTLS-SRTP handshake failed:") && sent.standardError.contains("alert"), "\(sent.standardError)")
        #expect(!sent.standardError.contains(/sent [1-9][0-9]* packets/), "\(sent.standardError)")
    }

    /// What `--dtls` cannot do, and offers that name no key exchange the command accepts:
    /// each its exit status and a message saying what to change.
    @Test func whatCannotWorkIsRefusedWithItsExitStatus() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, _) = try RealCallSupport.speech(seconds: 0.5, in: directory)
        let key = RealCallSupport.base64(RealCallSupport.keyAndSalt(seed: 25))
        let crypto = "AES_CM_128_HMAC_SHA1_80 inline:\(key)"
        let output = directory.appendingPathComponent("out.wav").path
        // An offer keyed by SDES alone, and one keyed by DTLS-SRTP alone, to nobody (port 9).
        let sdesOffer = directory.appendingPathComponent("sdes.sdp").path
        try HostileInputTests.description(port: 9, key: key).write(toFile: sdesOffer, atomically: true, encoding: .utf8)
        var local = LocalAudio(address: "127.0.0.1", port: 9)
        local.keyExchange = .dtls(fingerprint: try DTLSCertificate().fingerprint)
        let dtlsOffer = directory.appendingPathComponent("dtls.sdp").path
        try SessionDescription.offer(from: local).formatted.write(toFile: dtlsOffer, atomically: true, encoding: .utf8)
        let answer = directory.appendingPathComponent("answer.sdp").path
        let cases: [(arguments: [String], status: Int32, message: String)] = [
            (["send", "--dtls", "--to", "127.0.0.1:9", "--crypto", crypto, "--input", input.path], 2, "send --dtls needs --sdp FILE"),
            (["receive", "--dtls", "--listen", "127.0.0.1:0", "--crypto", crypto, "--output", output], 2, "receive --dtls needs --sdp FILE"),
            (["receive", "--listen", "127.0.0.1:0", "--output", output, "--answer-in", answer], 2, "give --offer-out FILE|- too"),
            (["send", "--dtls", "--sdp", sdesOffer, "--answer-out", answer, "--input", input.path], 3,
             "(offered: SDES; we accept DTLS-SRTP) (--dtls answers only offers with a=fingerprint; leave it out to answer with SDES)"),
            (["receive", "--listen", "127.0.0.1:0", "--sdp", dtlsOffer, "--answer-out", answer, "--output", output], 3,
             "(offered: DTLS-SRTP; we accept SDES) (answer with --dtls to key by a DTLS-SRTP handshake)"),
            (["call", "--listen", "127.0.0.1:0", "--input", input.path, "--output", output, "--sdp", dtlsOffer, "--answer-out", answer], 3,
             "answer with --dtls"),
        ]
        for (arguments, status, message) in cases {
            let result = try VoiceCallProcess.run(arguments)
            #expect(result.exited && result.status == status, "\(arguments): \(result.status) \(result.standardError)")
            #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
            #expect(!result.standardError.contains(key.prefix(8)), "\(arguments) printed key material: \(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: answer), "no answer was written for an offer that was refused")
    }
}

/// Whether the PulseAudio loopback's `pulse` PCM opens (checked under the real-device lock),
/// or must (CI).
enum LoopbackDevice {
    static let enabled = PulseAudioLoopback.required
        || RealDeviceLock.withLock { (try? ALSAStream(device: PulseAudioLoopback.device, directions: .playback)) != nil }
}

/// `voicecall call --device` keyed by DTLS-SRTP: the engine runs the handshake (its
/// `dtlsConnected`/`dtlsFailed` events, on standard error). One end on the PulseAudio
/// loopback's `pulse` PCM, the other on WAV files.
// The limit includes waiting for RealDeviceLock, which every real-device suite holds in turn.
@Suite(.serialized, .enabled(if: LoopbackDevice.enabled, "no ALSA device opens: make test starts the PulseAudio loopback (VOICEENGINE_REQUIRE_ALSA=1 fails instead)"),
       .timeLimit(.minutes(5)))
struct VoiceCallDTLSDeviceTests {
    let voicecall = VoiceCallProcess.executable

    /// The engine's end offers (`call --device pulse --dtls`), the WAV end answers; `forging`
    /// the answer on its way changes its fingerprint. Returns both ends.
    func call(forging: Bool, in directory: URL) throws -> (device: (status: Int32, standardError: String), files: (status: Int32, standardError: String)) {
        let (input, _) = try RealCallSupport.speech(seconds: 2, in: directory)
        let offer = directory.appendingPathComponent("offer.sdp").path
        let written = directory.appendingPathComponent("answer-as-written.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        return try RealDeviceLock.withLock {
            let device = try BackgroundProcess(voicecall, ["call", "--dtls", "--listen", "127.0.0.1:0", "--device", PulseAudioLoopback.device,
                                                           "--seconds", "4", "--offer-out", offer, "--answer-in", answer, "--give-up", "20"])
            VoiceCallDTLSTests.waitFor(offer, from: device)
            let files = try BackgroundProcess(voicecall, ["call", "--dtls", "--listen", "127.0.0.1:0", "--input", input.path,
                                                          "--output", directory.appendingPathComponent("out.wav").path,
                                                          "--sdp", offer, "--answer-out", forging ? written : answer, "--give-up", "20"])
            if forging {
                VoiceCallDTLSTests.waitFor(written, from: files)
                try VoiceCallDTLSTests.forged(try String(contentsOfFile: written, encoding: .utf8)).write(toFile: answer, atomically: true, encoding: .utf8)
            }
            return (device.wait(timeoutSeconds: 30), files.wait(timeoutSeconds: 30))
        }
    }

    @Test func theEngineKeysTheCallByItsHandshake() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (device, files) = try call(forging: false, in: directory)
        #expect(device.status == 0, "\(device.standardError)")
        #expect(files.status == 0, "\(files.standardError)")
        #expect(device.standardError.contains("DTLS-SRTP connected: AEAD_AES_128_GCM"), "\(device.standardError)")
        #expect(files.standardError.contains("DTLS-SRTP connected: AEAD_AES_128_GCM"), "\(files.standardError)")
        // Media flowed both ways under the handshake's keys.
        #expect(device.standardError.contains(#/received [1-9][0-9]*, /#), "\(device.standardError)")
        #expect(files.standardError.contains(/received [1-9][0-9]* packets/), "\(files.standardError)")
        // The engine's end hung up at --seconds: its close_notify ended the other.
        #expect(files.standardError.contains(RealCallDTLS.closed), "\(files.standardError)")
    }

    @Test func theEngineRefusesAForgedFingerprint() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (device, files) = try call(forging: true, in: directory)
        #expect(device.status == 8, "\(device.standardError)")
        #expect(device.standardError.contains("matches no a=fingerprint of its SDP"), "\(device.standardError)")
        #expect(!device.standardError.contains("DTLS-SRTP connected"))
        #expect(files.status == 8, "\(files.standardError)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.wav").path))
    }
}
