// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

/// Issue 15, "Real calls": interop with software nobody here wrote. GStreamer's own Opus
/// encoder, RTP payloader and libsrtp-based srtpenc send to `voicecall receive`; `voicecall
/// send` goes to GStreamer's srtpdec, depayloader and Opus decoder. The audio that comes out
/// must be the speech that went in.
///
/// `scripts/install-deps --test` installs GStreamer, so CI runs these; they are skipped only
/// where gst-launch-1.0 is missing, and the skip says so.
///
/// Nested in `RealCallTests` so that it runs serially with the other real-time calls: two
/// real-time pairs of processes at once on a 2-core machine make each other late.
extension RealCallTests {
@Suite(.enabled(if: RealCallSupport.gstLaunch != nil,
                "gst-launch-1.0 not found: install gstreamer1.0-tools and -plugins-base/-good/-bad (scripts/install-deps --test)"))
struct GStreamerInteropTests {
    let voicecall = VoiceCallProcess.executable

    /// The SRTP parameters GStreamer spells out for AES_CM_128_HMAC_SHA1_80.
    static let cipher = "aes-128-icm"
    static let auth = "hmac-sha1-80"

    /// GStreamer's elements for each codec: the rate its encoder takes, encoder, payloader,
    /// depayloader, decoder, and the RTP encoding name, payload type and clock rate.
    static func elements(_ codec: String) -> (rate: Int, encoder: String, payloader: String, depayloader: String, decoder: String,
                                               name: String, payloadType: Int, clockRate: Int) {
        switch codec {
        case "opus": (48_000, "opusenc bitrate=32000", "rtpopuspay pt=111", "rtpopusdepay", "opusdec", "OPUS", 111, 48_000)
        case "pcmu": (8_000, "mulawenc", "rtppcmupay", "rtppcmudepay", "mulawdec", "PCMU", 0, 8_000)
        case "pcma": (8_000, "alawenc", "rtppcmapay", "rtppcmadepay", "alawdec", "PCMA", 8, 8_000)
        // G.722 samples at 16 kHz but keeps RFC 3551's 8 kHz RTP clock.
        default: (16_000, "avenc_g722", "rtpg722pay", "rtpg722depay", "avdec_g722", "G722", 9, 8_000)
        }
    }

    /// GStreamer's own encoders, payloaders and libsrtp-based srtpenc to `voicecall receive
    /// --codec`: Opus, G.711 and G.722 (on RFC 3551's 8 kHz RTP clock).
    @Test(.enabled(if: RealCallSupport.hasGStreamerElement("avenc_g722"), "avenc_g722 not found: install gstreamer1.0-libav"),
          arguments: ["opus", "pcmu", "pcma", "g722"])
    func gstreamerSendsToVoicecallReceive(codec: String) throws {
        let gst = try #require(RealCallSupport.gstLaunch)
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, reference) = try RealCallSupport.speech(seconds: 3, from: 1, in: directory)
        let output = directory.appendingPathComponent("out.wav")
        let key = RealCallSupport.keyAndSalt(seed: 1_600)
        let receiver = try BackgroundProcess(voicecall, ["receive", "--listen", "127.0.0.1:0", "--codec", codec, "--crypto",
                                                         "AES_CM_128_HMAC_SHA1_80 inline:\(RealCallSupport.base64(key))",
                                                         "--output", output.path, "--give-up", "60"])
        let port = try RealCallSupport.listeningPort(of: receiver)
        let gstreamer = Self.elements(codec)
        let pipeline = "filesrc location=\(input.path) ! wavparse ! audioconvert ! audioresample ! audio/x-raw,rate=\(gstreamer.rate),channels=1"
            + " ! \(gstreamer.encoder) ! \(gstreamer.payloader) ! srtpenc key=\(RealCallSupport.hex(key)) rtp-cipher=\(Self.cipher)"
            + " rtp-auth=\(Self.auth) rtcp-cipher=\(Self.cipher) rtcp-auth=\(Self.auth) ! udpsink host=127.0.0.1 port=\(port) sync=true"
        let sender = try BackgroundProcess(URL(fileURLWithPath: gst), ["-q"] + pipeline.split(separator: " ").map(String.init))
        let sent = sender.wait(timeoutSeconds: 15)
        let received = receiver.wait(timeoutSeconds: 15)
        #expect(sent.status == 0, "gst-launch-1.0: \(sent.standardError)")
        #expect(received.status == 0, "\(received.standardError)")
        let (correlation, seconds) = try RealCallSupport.similarity(of: output, to: reference)
        print("GStreamer \(codec) → voicecall receive: correlation \(correlation), \(seconds) s")
        #expect(correlation > RealCallSupport.sameSpeech, "\(codec): \(correlation)")
        #expect(abs(seconds - 3) < 0.5)
    }

    /// `voicecall send --codec` to GStreamer's srtpdec, depayloaders and decoders. srtpdec finds
    /// the key in its caps for the SSRC given there; voicecall sends RTCP on the same port
    /// (rtcp-mux): srtpdec hands it to rtcp_src, drained into a fakesink. udpsrc ends the stream
    /// (and wavenc its file) after 148 datagrams: the 150 RTP packets of 3 s, less a couple in
    /// case RTCP took their place in the count. Measured for Opus: 0.84 (GStreamer's opusdec;
    /// 0.87 through our own decoder).
    @Test(.enabled(if: RealCallSupport.hasGStreamerElement("avdec_g722"), "avdec_g722 not found: install gstreamer1.0-libav"),
          arguments: ["opus", "pcmu", "pcma", "g722"])
    func voicecallSendsToGStreamer(codec: String) throws {
        let gst = try #require(RealCallSupport.gstLaunch)
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, reference) = try RealCallSupport.speech(seconds: 3, from: 1, in: directory)
        let output = directory.appendingPathComponent("gst-out.wav")
        let port = RealCallSupport.freePort()
        let key = RealCallSupport.keyAndSalt(seed: 1_601)
        let ssrc: UInt32 = 0x0711_0722
        let gstreamer = Self.elements(codec)
        let caps = "application/x-srtp,media=audio,clock-rate=\(gstreamer.clockRate),encoding-name=\(gstreamer.name),payload=\(gstreamer.payloadType)"
            + ",ssrc=(uint)\(ssrc),srtp-key=(buffer)\(RealCallSupport.hex(key)),srtp-cipher=\(Self.cipher),srtp-auth=\(Self.auth)"
            + ",srtcp-cipher=\(Self.cipher),srtcp-auth=\(Self.auth)"
        let pipeline = ["-q", "udpsrc", "address=127.0.0.1", "port=\(port)", "num-buffers=148", "caps=\(caps)", "!", "srtpdec", "name=d",
                        "d.rtp_src", "!", gstreamer.depayloader, "!", gstreamer.decoder, "!", "audioconvert", "!", "audioresample", "!",
                        "audio/x-raw,format=S16LE,channels=1,rate=48000", "!", "wavenc", "!", "filesink", "location=\(output.path)",
                        "d.rtcp_src", "!", "fakesink", "async=false"]
        let receiver = try BackgroundProcess(URL(fileURLWithPath: gst), pipeline)
        // udpsrc binds as the pipeline starts; what is sent before would be lost.
        #expect(RealCallSupport.waitUntilBound(port: port), "udpsrc never bound 127.0.0.1:\(port): \(receiver.standardErrorSoFar)")
        let sender = try BackgroundProcess(voicecall, ["send", "--to", "127.0.0.1:\(port)", "--codec", codec, "--crypto",
                                                       "AES_CM_128_HMAC_SHA1_80 inline:\(RealCallSupport.base64(key))",
                                                       "--input", input.path, "--ssrc", "\(ssrc)"])
        let sent = sender.wait(timeoutSeconds: 15)
        // wavenc has finished the file at end-of-stream, but gst-launch-1.0 does not exit: the
        // pipeline waits for end-of-stream on the RTCP branch too, which srtpdec never sends.
        // Its exit status says nothing about the audio: the file does.
        _ = receiver.wait(timeoutSeconds: 1.5)
        #expect(sent.status == 0, "\(sent.standardError)")
        let (correlation, seconds) = try RealCallSupport.similarity(of: output, to: reference)
        print("voicecall send \(codec) → GStreamer: correlation \(correlation), \(seconds) s")
        #expect(correlation > RealCallSupport.sameSpeech, "\(codec): \(correlation)")
        #expect(abs(seconds - 3) < 0.5)
    }
}
}
