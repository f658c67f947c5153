// SPDX-License-Identifier: Apache-2.0
import Foundation
import SRTP
import SessionDescription
import Testing

/// Issue 15, "Real calls": the SDP subset a SIP stack hands over, and offer/answer over it.
@Suite struct SessionDescriptionTests {
    /// 30 bytes of key||salt, base64: a fixed key so the test's text is fixed.
    static let key80 = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"
    static let key32 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVpbXF1e"

    /// An offer as a SIP stack writes one (Asterisk/baresip style): two media-level
    /// attributes we ignore, a suite we do not support listed first, 8 kHz and 48 kHz DTMF.
    static let offer = """
        v=0\r
        o=- 4858 4858 IN IP4 192.0.2.10\r
        s=Asterisk\r
        c=IN IP4 192.0.2.10\r
        t=0 0\r
        m=audio 40000 RTP/SAVP 111 0 101 102\r
        a=rtpmap:111 opus/48000/2\r
        a=fmtp:111 useinbandfec=1;maxaveragebitrate=32000\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:101 telephone-event/8000\r
        a=rtpmap:102 telephone-event/48000\r
        a=fmtp:101 0-16\r
        a=ptime:20\r
        a=maxptime:60\r
        a=rtcp:40001 IN IP4 192.0.2.10\r
        a=rtcp-mux\r
        a=crypto:1 F8_128_HMAC_SHA1_80 inline:\(key80)\r
        a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:\(key32)\r
        a=crypto:3 AES_CM_128_HMAC_SHA1_80 inline:\(key80)|2^31\r
        a=sendrecv\r
        m=video 0 RTP/SAVP 96\r
        c=IN IP4 198.51.100.1\r
        a=rtpmap:96 VP8/90000\r

        """

    @Test func parsesTheSubsetASIPStackHandsOver() throws {
        let sdp = try SessionDescription(parsing: Self.offer)
        let audio = try #require(sdp.audio)
        #expect(sdp.audioConnection == ConnectionAddress(family: .ipv4, address: "192.0.2.10"))
        #expect(audio.port == 40000)
        #expect(audio.profile == "RTP/SAVP")
        #expect(audio.payloadTypes == [111, 0, 101, 102])
        #expect(audio.opus == RTPMap(payloadType: 111, encoding: "opus", clockRate: 48_000, channels: 2))
        #expect(audio.formatParameters[111] == "useinbandfec=1;maxaveragebitrate=32000")
        #expect(audio.telephoneEvent(preferringClockRate: 48_000)?.payloadType == 102)
        #expect(audio.telephoneEvent(preferringClockRate: 8_000)?.payloadType == 101)
        #expect(audio.ptime == 20)
        #expect(audio.rtcpMux)
        #expect(audio.rtcpPort == 40001)
        #expect(audio.crypto.map(\.tag) == [2, 3])
        #expect(audio.crypto.map(\.profile) == [.aesCM128HmacSha1_32, .aesCM128HmacSha1_80])
        #expect(audio.unsupportedSuites == ["F8_128_HMAC_SHA1_80"])
        // The video section's c= does not leak into audio.
        #expect(audio.connection == nil)
    }

    @Test func parsesIPv6AndBareLineFeeds() throws {
        let text = "v=0\no=- 1 1 IN IP6 ::1\ns=-\nt=0 0\nm=audio 5004 RTP/SAVP 96\nc=IN IP6 2001:db8::7\n"
            + "a=rtpmap:96 opus/48000/2\na=crypto:7 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key80)\n"
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.audioConnection == ConnectionAddress(family: .ipv6, address: "2001:db8::7"))
        #expect(sdp.audio?.opus?.payloadType == 96)
        #expect(sdp.audio?.rtcpMux == false)
    }

    @Test func answerPicksOpusTelephoneEventTheirSuiteAndRTCPMux() throws {
        let offer = try SessionDescription(parsing: Self.offer)
        let local = LocalAudio(address: "203.0.113.5", port: 50_000)
        let ourKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_32)
        let (answer, negotiated) = try offer.answer(from: local) { profile in
            #expect(profile == .aesCM128HmacSha1_32)
            return ourKey
        }
        // Their first line with a suite we accept is tag 2 (32-bit tag): answered with tag 2.
        #expect(answer.audio?.crypto.map(\.tag) == [2])
        #expect(negotiated.profile == .aesCM128HmacSha1_32)
        #expect(negotiated.sendingKey == ourKey)
        #expect(negotiated.receivingKey == offer.audio?.crypto.first?.keyingMaterial)
        #expect(negotiated.remoteAddress == "192.0.2.10")
        #expect(negotiated.remotePort == 40000)
        #expect(negotiated.codec == .opus && negotiated.payloadType == 111)
        #expect(negotiated.telephoneEvent?.payloadType == 102)
        #expect(negotiated.telephoneEvent?.clockRate == 48_000)
        #expect(negotiated.peerFormatParameters == "useinbandfec=1;maxaveragebitrate=32000")
        #expect(negotiated.peerPtime == 20)
        #expect(negotiated.rtcpMux)
        // The answer lists only what was accepted, with the offer's payload type numbers.
        #expect(answer.audio?.payloadTypes == [111, 102])
        #expect(answer.audio?.rtcpMux == true)

        // Written and read back, the answer settles the same for the offerer, keys crossed.
        let reread = try SessionDescription(parsing: answer.formatted)
        #expect(reread == answer)
        let offerer = try reread.negotiated(offer: offer)
        #expect(offerer.sendingKey == negotiated.receivingKey)
        #expect(offerer.receivingKey == negotiated.sendingKey)
        #expect(offerer.remoteAddress == "203.0.113.5")
        #expect(offerer.remotePort == 50_000)
        #expect(offerer.codec == .opus && offerer.payloadType == 111)
        #expect(offerer.telephoneEvent?.payloadType == 102)
    }

    @Test func ourOfferAnsweredByOurselvesAgreesBothWays() throws {
        var alice = LocalAudio(address: "127.0.0.1", port: 4000)
        alice.suites = [.aesCM128HmacSha1_80, .aeadAES128GCM]
        let keys = alice.suites.map { SRTPKeyingMaterial.random(profile: $0) }
        let offer = try SessionDescription.offer(from: alice, keys: keys)
        let text = offer.formatted
        #expect(text.hasPrefix("v=0\r\n"))
        #expect(text.contains("m=audio 4000 RTP/SAVP 111 9 0 8 101 100\r\n"))
        #expect(text.contains("a=rtpmap:111 opus/48000/2\r\n"))
        #expect(text.contains("a=rtpmap:9 G722/8000\r\n") && text.contains("a=rtpmap:0 PCMU/8000\r\n") && text.contains("a=rtpmap:8 PCMA/8000\r\n"))
        #expect(text.contains("a=rtpmap:101 telephone-event/48000\r\n"))
        #expect(text.contains("a=rtpmap:100 telephone-event/8000\r\n"))
        #expect(text.contains("a=rtcp-mux\r\n"))
        var bob = LocalAudio(address: "::1", port: 4002)
        bob.suites = [.aeadAES128GCM]
        let (answer, bobSide) = try SessionDescription(parsing: text).answer(from: bob) { SRTPKeyingMaterial.random(profile: $0) }
        #expect(bobSide.profile == .aeadAES128GCM)
        #expect(bobSide.receivingKey == keys[1])
        let aliceSide = try SessionDescription(parsing: answer.formatted).negotiated(offer: offer)
        #expect(aliceSide.sendingKey == keys[1])
        #expect(aliceSide.receivingKey == bobSide.sendingKey)
        #expect(aliceSide.remoteAddress == "::1")
        #expect(aliceSide.rtcpMux)
    }

    @Test func noTelephoneEventOfferedMeansNoneAnswered() throws {
        let text = Self.offer.replacingOccurrences(of: "a=rtpmap:101 telephone-event/8000\r\n", with: "")
            .replacingOccurrences(of: "a=rtpmap:102 telephone-event/48000\r\n", with: "")
            .replacingOccurrences(of: "a=rtcp-mux\r\n", with: "")
        let (answer, negotiated) = try SessionDescription(parsing: text).answer(from: LocalAudio(address: "127.0.0.1", port: 1)) {
            SRTPKeyingMaterial.random(profile: $0)
        }
        #expect(negotiated.telephoneEvent == nil)
        #expect(!negotiated.rtcpMux)
        #expect(answer.audio?.payloadTypes == [111])
        #expect(!answer.formatted.contains("a=rtcp-mux"))
    }

    /// Each malformed line is named by number and kind; a bad crypto line never quotes its key.
    @Test(arguments: [
        ("c=IN IP4\r\n", 5, "c="),
        ("m=audio 70000 RTP/SAVP 111\r\n", 5, "m="),
        ("m=audio 4000 RTP/SAVP 300\r\n", 5, "m="),
        ("a=rtpmap:111 opus\r\n", 6, "a=rtpmap"),
        ("a=ptime:0\r\n", 6, "a=ptime"),
        ("a=rtcp:port\r\n", 6, "a=rtcp"),
        ("garbage\r\n", 5, "?"),
    ])
    func malformedLinesAreNamed(line: String, number: Int, kind: String) {
        let base = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
        let text = line.hasPrefix("a=") ? base + "m=audio 4000 RTP/SAVP 111\r\n" + line : base + line
        #expect {
            try SessionDescription(parsing: text)
        } throws: { error in
            guard case let .malformed(lineNumber, lineKind, _) = error as? SessionDescriptionError else { return false }
            return lineNumber == number && lineKind == kind
        }
    }

    @Test func malformedCryptoIsNamedWithoutTheKey() {
        let secret = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9Cn"  // 34 characters: not 30 bytes
        let text = "v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio 4000 RTP/SAVP 111\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(secret)\r\n"
        do {
            _ = try SessionDescription(parsing: text)
            Issue.record("parsed a malformed key")
        } catch {
            guard case .crypto(line: 4, _) = error else { Issue.record("\(error)"); return }
            #expect(!"\(error)".contains(secret.prefix(8)))
            #expect("\(error)".contains("line 4"))
        }
    }

    @Test func unanswerableOffersSayWhy() throws {
        let local = LocalAudio(address: "127.0.0.1", port: 1)
        func answering(_ text: String) -> SessionDescriptionError? {
            do {
                _ = try SessionDescription(parsing: text).answer(from: local) { SRTPKeyingMaterial.random(profile: $0) }
                return nil
            } catch { return error }
        }
        #expect(answering(Self.offer.replacingOccurrences(of: "RTP/SAVP 111 0", with: "RTP/AVP 111 0")) == .notSecure(profile: "RTP/AVP"))
        #expect(answering(Self.offer.replacingOccurrences(of: "opus/48000/2", with: "speex/16000")
            .replacingOccurrences(of: "RTP/SAVP 111 0", with: "RTP/SAVP 111")) == .noCommonCodec(
                offered: ["speex/16000", "telephone-event/8000", "telephone-event/48000"], accepted: ["opus", "G722", "PCMU", "PCMA"]))
        #expect(answering(Self.offer.replacingOccurrences(of: "m=audio", with: "m=text")) == .noAudio)
        #expect(answering(Self.offer.replacingOccurrences(of: "c=IN IP4 192.0.2.10\r\nt=", with: "t=")) == .noConnection)
        var onlyGCM = local
        onlyGCM.suites = [.aeadAES256GCM]
        let error = try? #require(throws: SessionDescriptionError.self) {
            try SessionDescription(parsing: Self.offer).answer(from: onlyGCM) { SRTPKeyingMaterial.random(profile: $0) }
        }
        #expect(error == .noCommonSuite(offered: ["AES_CM_128_HMAC_SHA1_32", "AES_CM_128_HMAC_SHA1_80", "F8_128_HMAC_SHA1_80"],
                                        accepted: ["AEAD_AES_256_GCM"]))
        #expect(!"\(error!)".contains(Self.key80.prefix(8)))
    }

    /// `description` (what print and interpolation show) never contains a key.
    @Test func descriptionsLeaveKeysOut() throws {
        let offer = try SessionDescription(parsing: Self.offer)
        let (answer, negotiated) = try offer.answer(from: LocalAudio(address: "127.0.0.1", port: 9)) { SRTPKeyingMaterial.random(profile: $0) }
        let ourKey = try #require(answer.audio?.crypto.first?.attributeValue.split(separator: ":").last?.prefix(8))
        for text in ["\(offer)", "\(answer)", "\(negotiated)", "\(String(describing: answer.audio))"] {
            #expect(!text.contains(Self.key80.prefix(8)) && !text.contains(Self.key32.prefix(8)) && !text.contains(ourKey), "\(text)")
        }
        #expect(answer.formatted.contains(String(ourKey)))
    }

    /// The offerer's order decides: a trunk offering G.711 first gets G.711, with the
    /// telephone-event on its 8 kHz clock; a static payload type counts without an rtpmap.
    @Test func theOfferersPreferredCodecWins() throws {
        let trunk = Self.offer.replacingOccurrences(of: "RTP/SAVP 111 0 101 102", with: "RTP/SAVP 0 111 101 102")
        let (answer, negotiated) = try SessionDescription(parsing: trunk).answer(from: LocalAudio(address: "127.0.0.1", port: 1)) {
            SRTPKeyingMaterial.random(profile: $0)
        }
        #expect(negotiated.codec == .pcmu && negotiated.payloadType == 0)
        #expect(negotiated.telephoneEvent == RTPMap(payloadType: 101, encoding: "telephone-event", clockRate: 8_000))
        #expect(answer.audio?.payloadTypes == [0, 101])
        #expect(!answer.formatted.contains("a=fmtp"), "no Opus parameters in a G.711 answer")
        let offerer = try SessionDescription(parsing: answer.formatted).negotiated(offer: SessionDescription(parsing: trunk))
        #expect(offerer.codec == .pcmu && offerer.telephoneEvent?.clockRate == 8_000)

        // `m=audio … 8` with no rtpmap at all (RFC 3551's static assignment), and no event at
        // the voice's clock: PCMA, without DTMF (a 48 kHz event cannot share an 8 kHz timeline).
        let bare = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=audio 4000 RTP/SAVP 8 102\r\n"
            + "a=rtpmap:102 telephone-event/48000\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key80)\r\n"
        let gateway = try SessionDescription(parsing: bare).answer(from: LocalAudio(address: "127.0.0.1", port: 1)) {
            SRTPKeyingMaterial.random(profile: $0)
        }.negotiated
        #expect(gateway.codec == .pcma && gateway.payloadType == 8 && gateway.telephoneEvent == nil)

        // G.722 keeps RFC 3551's 8 kHz clock in SDP though it samples at 16 kHz.
        var wideband = LocalAudio(address: "127.0.0.1", port: 1)
        wideband.codecs = [.g722]
        let offer = try SessionDescription.offer(from: wideband, keys: [SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)])
        #expect(offer.formatted.contains("m=audio 1 RTP/SAVP 9 100\r\n") && offer.formatted.contains("a=rtpmap:9 G722/8000\r\n"))
        #expect(!offer.formatted.contains("opus") && !offer.formatted.contains("a=fmtp"))
        // Offered to a side that takes only Opus: nothing in common, said with both lists.
        var opusOnly = LocalAudio(address: "127.0.0.1", port: 2)
        opusOnly.codecs = [.opus]
        #expect(throws: SessionDescriptionError.noCommonCodec(offered: ["G722/8000", "telephone-event/8000"], accepted: ["opus"])) {
            try SessionDescription(parsing: offer.formatted).answer(from: opusOnly) { SRTPKeyingMaterial.random(profile: $0) }
        }
    }

    /// An answer may list several of the offered codecs, and its sender may switch among them
    /// (RFC 3264 §5.1): the first is the one both send, the others (offered under the same
    /// payload type) are what we must also play. One we did not offer, or offered under
    /// another number, is not.
    @Test func theAnswersOtherCodecsAreOnesWeMayReceive() throws {
        let offer = try SessionDescription.offer(from: LocalAudio(address: "127.0.0.1", port: 1),
                                                 keys: [SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)])
        #expect(offer.audio?.payloadTypes.starts(with: [111, 9, 0, 8]) == true)
        let answer = "v=0\r\no=- 1 1 IN IP4 192.0.2.1\r\ns=-\r\nc=IN IP4 192.0.2.1\r\nt=0 0\r\nm=audio 4000 RTP/SAVP 0 8 9 3 97 100\r\n"
            + "a=rtpmap:97 opus/48000/2\r\na=rtpmap:100 telephone-event/8000\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.key80)\r\n"
        let negotiated = try SessionDescription(parsing: answer).negotiated(offer: offer)
        #expect(negotiated.codec == .pcmu && negotiated.payloadType == 0)
        #expect(negotiated.alternativeReceiveCodecs == [8: .pcma, 9: .g722], "GSM (3) not ours, Opus on 97 not as offered (111)")
        #expect("\(negotiated)".contains("may receive PCMA pt 8"))

        // An answer with one codec leaves nothing else to receive.
        let single = answer.replacingOccurrences(of: "0 8 9 3 97 100", with: "9 100")
        #expect(try SessionDescription(parsing: single).negotiated(offer: offer).alternativeReceiveCodecs.isEmpty)
    }
}
