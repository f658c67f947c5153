// SPDX-License-Identifier: Apache-2.0
import CallNegotiation
import Foundation
import SRTP
import SessionDescription

/// `SessionDescription(parsing:)` over any text, and offer/answer from what parses against a
/// fixed local side. Invariants: nothing traps; what parses is written (`formatted`) as a
/// body that parses to the same description (less what is not written: other suites'
/// names, other fingerprints' hash functions, `a=fmtp` of payload types the `m=` line does
/// not list); an answer we make parses
/// and settles, for the offerer, the same stream with the keys crossed; no description
/// shows our key; the two sides settle mirror-image directions, and what the answerer settled
/// becomes a call's media or a typed error (`makeCallMedia`), never a trap.
enum SDPTarget {
    static let target = FuzzTarget(name: "sdp", run: run, seeds: seeds)

    static let local = LocalAudio(address: "192.0.2.1", port: 40_000)
    /// Our key for whatever suite the offer makes us answer with: fixed, so its text can be
    /// looked for in descriptions.
    static let keys: [SRTPProfile: SRTPKeyingMaterial] = Dictionary(uniqueKeysWithValues: SRTPProfile.allCases.map { profile in
        (profile, try! SRTPKeyingMaterial(profile: profile, keyAndSalt: (0..<profile.keyingMaterialLength).map { UInt8(0xA0 &+ $0) }))
    })

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        let sdp: SessionDescription
        do {
            sdp = try SessionDescription(parsing: text)
        } catch {
            blackHole(error.description)
            return
        }
        let formatted = sdp.formatted
        var expected = sdp
        expected.dtls.unsupportedFingerprintHashes = []
        if var audio = expected.audio {
            audio.unsupportedSuites = []
            audio.dtls.unsupportedFingerprintHashes = []
            audio.formatParameters = audio.formatParameters.filter { audio.payloadTypes.contains($0.key) }
            expected.audio = audio
        }
        let again = try? SessionDescription(parsing: formatted)
        check(again == expected, "formatted does not parse back to the same description")
        check(again?.formatted == formatted, "formatting is not stable")
        blackHole(sdp.description)

        let answered: (answer: SessionDescription, negotiated: NegotiatedAudio)
        do {
            answered = try sdp.answer(from: local) { keys[$0]! }
        } catch {
            blackHole(error.description)
            return
        }
        // The local side keys by SDES only: an answer it makes has our key.
        guard let ourKey = answered.negotiated.sendingKey else {
            check(false, "an SDES-only answer without an SDES key")
            return
        }
        let ourKeyText = Data(ourKey.keyAndSalt).base64EncodedString()
        for description in ["\(answered.answer)", "\(answered.negotiated)", "\(sdp)"] {
            check(!description.contains(ourKeyText.prefix(16)), "a description shows our key")
        }
        // The peer's fmtp and ptime come from the text: a configuration or a typed error.
        do {
            blackHole("\(try answered.negotiated.makeCallMedia(ssrc: 1).configuration)")
        } catch {
            blackHole(error.description)
        }
        let answerText = answered.answer.formatted
        guard let reread = try? SessionDescription(parsing: answerText) else {
            check(false, "our answer does not parse")
            return
        }
        check(reread == answered.answer, "our answer does not parse back to itself")
        do {
            let offerer = try reread.negotiated(offer: sdp)
            check(offerer.sendingKey == answered.negotiated.receivingKey && offerer.receivingKey == ourKey, "keys not crossed")
            check(offerer.remoteAddress == local.address && offerer.remotePort == local.port, "offerer sends elsewhere")
            check(offerer.codec == answered.negotiated.codec && offerer.payloadType == answered.negotiated.payloadType, "codecs differ")
            check(offerer.telephoneEvent == answered.negotiated.telephoneEvent, "telephone-events differ")
            check(offerer.direction == answered.negotiated.direction.reversed, "directions are not mirror images")
            check(offerer.direction.intersection(sdp.audioDirection) == offerer.direction, "the answer widened the offer's direction")
        } catch {
            check(false, "the offerer cannot use our answer: \(error)")
        }
    }

    static func seeds() throws -> [[UInt8]] {
        let key80 = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"
        let gcm256 = "MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTIzNDU2Nzg5MDEy"
        return [
            // A SIP stack's offer: suites we skip and take, DTMF at two rates, a video section.
            """
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
            a=rtcp:40001 IN IP4 192.0.2.10\r
            a=rtcp-mux\r
            a=crypto:1 F8_128_HMAC_SHA1_80 inline:\(key80)\r
            a=crypto:3 AES_CM_128_HMAC_SHA1_80 inline:\(key80)|2^31|1:4 KDR=1\r
            a=sendonly\r
            m=video 0 RTP/SAVP 96\r
            c=IN IP4 198.51.100.1\r
            a=rtpmap:96 VP8/90000\r

            """,
            // IPv6, bare line feeds, a media-level c=, an AEAD suite.
            "v=0\no=- 1 1 IN IP6 ::1\ns=-\nt=0 0\nm=audio 5004 RTP/SAVPF 96\nc=IN IP6 2001:db8::7\n"
                + "a=rtpmap:96 OPUS/48000/2\na=crypto:7 AEAD_AES_256_GCM inline:\(gcm256)\n",
            // A rejected stream, then the one to use.
            "v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio 0 RTP/SAVP 111\r\nm=audio 4000/2 RTP/SAVP 111\r\na=rtpmap:111 opus/48000\r\n"
                + "a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:\(key80)\r\n",
            // What the parser refuses: a NUL in c=, a session parameter turning encryption off.
            "v=0\r\nc=IN IP4 127.0.0.1\u{0}evil\r\nm=audio 4000 RTP/SAVP 111\r\n",
            "v=0\r\nc=IN IP4 127.0.0.1\r\nm=audio 4000 RTP/SAVP 111\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key80) UNENCRYPTED_SRTP\r\n",
            // A WebRTC offer keyed by DTLS with ICE, and crypto too (the SDES-only local side
            // answers by it): the transport attributes at both levels.
            "v=0\r\no=- 46117 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\na=ice-options:trickle\r\n"
                + "a=fingerprint:md5 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF\r\n"
                + "m=audio 9 UDP/TLS/RTP/SAVPF 111 110\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=rtcp-mux\r\n"
                + "a=rtpmap:111 opus/48000/2\r\na=rtpmap:110 telephone-event/48000\r\na=ice-ufrag:Oyef\r\n"
                + "a=ice-pwd:7Ry4UtpGTeSoOVgqKPYZPXqL\r\n"
                + "a=candidate:1467250027 1 udp 2122260223 192.168.0.196 46243 typ host generation 0 network-id 1\r\n"
                + "a=candidate:435653019 1 udp 1686052607 203.0.113.17 46243 typ srflx raddr 192.168.0.196 rport 46243\r\n"
                + "a=end-of-candidates\r\na=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":") + "\r\n"
                + "a=setup:actpass\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:\(key80)\r\n",
        ].map { Array($0.utf8) }
    }
}
