// SPDX-License-Identifier: Apache-2.0
import SRTP
import SessionDescription
import Testing

/// Offer/answer keyed by DTLS-SRTP (RFC 5763, RFC 8842) beside SDES: which way a call is keyed,
/// who starts the handshake (`a=setup`), and what WebRTC endpoints write and expect.
@Suite struct DTLSOfferAnswerTests {
    /// Our certificate's fingerprint (bytes 0xA0…) and the peer's (0x10…).
    static let ours = CertificateFingerprint(hashFunction: .sha256, digest: (0..<32).map { UInt8(0xA0 + $0) })!
    static let theirs = CertificateFingerprint(hashFunction: .sha256, digest: (0..<32).map { UInt8(0x10 + $0) })!

    /// An audio-only offer as Chrome writes one (aiortc's differs only in its attribute order
    /// and the absence of the Chrome-only lines): ICE credentials, a host and a server-reflexive
    /// candidate, DTLS with `actpass`, BUNDLE, rtcp-mux, Opus first, RED, CN, two
    /// telephone-events; attributes we do not use (extmap, msid, rtcp-fb, ssrc) in between.
    static let chromeOffer = """
        v=0\r
        o=- 4611731400430051336 2 IN IP4 127.0.0.1\r
        s=-\r
        t=0 0\r
        a=group:BUNDLE 0\r
        a=extmap-allow-mixed\r
        a=msid-semantic: WMS 5b3d7c8e\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126\r
        c=IN IP4 0.0.0.0\r
        a=rtcp:9 IN IP4 0.0.0.0\r
        a=candidate:1467250027 1 udp 2122260223 192.168.0.196 46243 typ host generation 0 network-id 1 network-cost 10\r
        a=candidate:435653019 1 udp 1686052607 203.0.113.17 46243 typ srflx raddr 192.168.0.196 rport 46243 generation 0 network-id 1 network-cost 10\r
        a=ice-ufrag:Oyef\r
        a=ice-pwd:7Ry4UtpGTeSoOVgqKPYZPXqL\r
        a=ice-options:trickle\r
        a=fingerprint:\(theirs.sdpValue)\r
        a=setup:actpass\r
        a=mid:0\r
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level\r
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r
        a=sendrecv\r
        a=msid:5b3d7c8e 0c7d6a1e-1f2b-4c3d-9e8f-7a6b5c4d3e2f\r
        a=rtcp-mux\r
        a=rtpmap:111 opus/48000/2\r
        a=rtcp-fb:111 transport-cc\r
        a=fmtp:111 minptime=10;useinbandfec=1\r
        a=rtpmap:63 red/48000/2\r
        a=fmtp:63 111/111\r
        a=rtpmap:9 G722/8000\r
        a=rtpmap:0 PCMU/8000\r
        a=rtpmap:8 PCMA/8000\r
        a=rtpmap:13 CN/8000\r
        a=rtpmap:110 telephone-event/48000\r
        a=rtpmap:126 telephone-event/8000\r
        a=ssrc:3735928559 cname:rG3t0n9Fk1bQ2mZx\r
        a=ssrc:3735928559 msid:5b3d7c8e 0c7d6a1e-1f2b-4c3d-9e8f-7a6b5c4d3e2f\r

        """

    static func local(_ keyExchange: KeyExchange, port: UInt16 = 50_000) -> LocalAudio {
        var local = LocalAudio(address: "203.0.113.5", port: port)
        local.keyExchange = keyExchange
        return local
    }

    static func ourICE() throws -> LocalICE {
        let host = try ICECandidate(foundation: "1", componentID: 1, priority: 2_130_706_431, address: "203.0.113.5", port: 50_000, type: .host)
        return try LocalICE(usernameFragment: "vEk1", password: "Wq0jYl2pQ7nZ3rT5uV8xA1", candidates: [host], trickle: true)
    }

    /// Never called for DTLS-SRTP: there is no SDES key to make.
    static func noSDESKey(_ profile: SRTPProfile) -> SRTPKeyingMaterial {
        Issue.record("asked for an SDES key of \(profile) in a DTLS-SRTP answer")
        return .random(profile: profile)
    }

    @Test func aChromeOfferIsAnsweredWithDTLS() throws {
        let offer = try SessionDescription(parsing: Self.chromeOffer)
        var local = Self.local(.dtls(fingerprint: Self.ours))
        local.ice = try Self.ourICE()
        let (answer, negotiated) = try offer.answer(from: local, key: Self.noSDESKey)
        let text = answer.formatted

        // What Chrome needs to accept it: its profile, our fingerprint, active, its mid and
        // BUNDLE group, rtcp-mux, our ICE; no a=crypto.
        #expect(text.contains("m=audio 50000 UDP/TLS/RTP/SAVPF 111 110\r\n"), "\(text)")
        #expect(text.contains("a=fingerprint:\(Self.ours.sdpValue)\r\n"))
        #expect(text.contains("a=setup:active\r\n") && !text.contains("a=setup:actpass"))
        #expect(text.contains("a=mid:0\r\n") && text.contains("a=group:BUNDLE 0\r\n"))
        #expect(text.contains("a=rtcp-mux\r\n"))
        #expect(!text.contains("a=crypto"))
        #expect(text.contains("a=ice-ufrag:vEk1\r\na=ice-pwd:Wq0jYl2pQ7nZ3rT5uV8xA1\r\na=ice-options:trickle\r\n"))
        #expect(text.contains("a=candidate:1 1 UDP 2130706431 203.0.113.5 50000 typ host\r\n"))

        // What we settled: the DTLS client (we said active), checking Chrome's fingerprint; no
        // SDES key, no suite until the handshake; Chrome's ICE for the ICE layer.
        #expect(negotiated.keying == .dtls(NegotiatedDTLS(role: .client, remoteFingerprints: [Self.theirs])))
        #expect(negotiated.dtls?.role == .client)
        #expect(negotiated.profile == nil && negotiated.sendingKey == nil && negotiated.receivingKey == nil)
        #expect(negotiated.codec == .opus && negotiated.payloadType == 111)
        #expect(negotiated.telephoneEvent == RTPMap(payloadType: 110, encoding: "telephone-event", clockRate: 48_000))
        #expect(negotiated.peerFormatParameters == "minptime=10;useinbandfec=1")
        #expect(negotiated.rtcpMux)
        #expect(negotiated.remoteAddress == "0.0.0.0" && negotiated.remotePort == 9, "ICE finds the real address, not c=")
        let ice = try #require(negotiated.remoteICE)
        #expect(ice.usernameFragment == "Oyef" && ice.password == "7Ry4UtpGTeSoOVgqKPYZPXqL" && ice.trickle)
        #expect(ice.candidates.map(\.type) == [.host, .serverReflexive])
        #expect(ice.candidates.map(\.port) == [46243, 46243] && ice.candidates[1].relatedAddress == "192.168.0.196")
        #expect(!ice.endOfCandidates)
        let summary = "\(negotiated)"
        #expect(summary.contains("DTLS-SRTP as client") && summary.contains(Self.theirs.sdpValue), "\(summary)")
        #expect(!summary.contains("7Ry4UtpGTeSoOVgqKPYZPXqL"), "no ICE password in \(summary)")

        // Chrome's side of it, reading our answer: the DTLS server, checking our fingerprint.
        let chrome = try SessionDescription(parsing: text).negotiated(offer: offer)
        #expect(chrome.keying == .dtls(NegotiatedDTLS(role: .server, remoteFingerprints: [Self.ours])))
        #expect(chrome.remoteICE?.usernameFragment == "vEk1" && chrome.remoteICE?.candidates.count == 1)
        #expect(chrome.codec == .opus && chrome.telephoneEvent?.payloadType == 110)
    }

    /// A DTLS-SRTP-only offer is what WebRTC answerers take (RFC 8829): UDP/TLS/RTP/SAVPF, our
    /// fingerprint, actpass, a mid in a BUNDLE group, rtcp-mux, no a=crypto even with keys.
    @Test func ourDTLSOfferIsWhatWebRTCExpects() throws {
        let alice = Self.local(.dtls(fingerprint: Self.ours), port: 40_000)
        let offer = try SessionDescription.offer(from: alice, keys: [.random(profile: .aesCM128HmacSha1_80)])
        let text = offer.formatted
        #expect(text.contains("m=audio 40000 UDP/TLS/RTP/SAVPF 111 9 0 8 101 100\r\n"), "\(text)")
        #expect(text.contains("a=fingerprint:\(Self.ours.sdpValue)\r\n") && text.contains("a=setup:actpass\r\n"))
        #expect(text.contains("a=mid:0\r\n") && text.contains("a=rtcp-mux\r\n"))
        let group = try #require(text.range(of: "a=group:BUNDLE 0\r\n"))
        #expect(group.upperBound <= text.range(of: "m=audio")!.lowerBound, "a=group is session-level")
        #expect(!text.contains("a=crypto") && !text.contains("a=ice-"))
        #expect(offer.audio?.usesDTLS == true)

        // Answered by another DTLS side: it is the client, we the server.
        let (answer, bob) = try SessionDescription(parsing: text).answer(from: Self.local(.dtls(fingerprint: Self.theirs)), key: Self.noSDESKey)
        #expect(bob.dtls == NegotiatedDTLS(role: .client, remoteFingerprints: [Self.ours]))
        let aliceSide = try SessionDescription(parsing: answer.formatted).negotiated(offer: offer)
        #expect(aliceSide.dtls == NegotiatedDTLS(role: .server, remoteFingerprints: [Self.theirs]))
        #expect(aliceSide.remotePort == 50_000 && aliceSide.codec == .opus && aliceSide.rtcpMux)
    }

    /// `.sdes` (the default) offers exactly what it always did: nothing of DTLS or ICE.
    @Test func theSDESOfferIsUnchanged() throws {
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let offer = try SessionDescription.offer(from: LocalAudio(address: "127.0.0.1", port: 4000), keys: [key])
        let crypto = try #require(offer.audio?.crypto.first?.attributeLine)
        #expect(offer.formatted == """
            v=0\r
            o=voicecall 1 1 IN IP4 127.0.0.1\r
            s=-\r
            c=IN IP4 127.0.0.1\r
            t=0 0\r
            m=audio 4000 RTP/SAVP 111 9 0 8 101 100\r
            a=rtpmap:111 opus/48000/2\r
            a=rtpmap:9 G722/8000\r
            a=rtpmap:0 PCMU/8000\r
            a=rtpmap:8 PCMA/8000\r
            a=rtpmap:101 telephone-event/48000\r
            a=rtpmap:100 telephone-event/8000\r
            a=fmtp:111 useinbandfec=1\r
            a=ptime:20\r
            a=rtcp-mux\r
            \(crypto)\r
            a=sendrecv\r

            """)
        #expect(LocalAudio(address: "127.0.0.1", port: 1).keyExchange == .sdes)
    }

    /// `.dtlsOrSDES` offers both on RTP/SAVP: an SDES-only answerer takes the crypto (and
    /// ignores the fingerprint), a DTLS one the fingerprint, each settling the same for both.
    @Test func aDualOfferIsAnsweredEitherWay() throws {
        let alice = Self.local(.dtlsOrSDES(fingerprint: Self.ours), port: 40_000)
        let keys = [SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80), .random(profile: .aeadAES128GCM)]
        let offer = try SessionDescription.offer(from: alice, keys: keys)
        let text = offer.formatted
        #expect(text.contains("m=audio 40000 RTP/SAVP "), "legacy SDES peers understand RTP/SAVP")
        #expect(text.contains("a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:") && text.contains("a=crypto:2 AEAD_AES_128_GCM inline:"))
        #expect(text.contains("a=fingerprint:\(Self.ours.sdpValue)\r\n") && text.contains("a=setup:actpass\r\n"))
        #expect(!text.contains("a=mid") && !text.contains("a=group"))

        // An SDES-only answerer: the crypto, no fingerprint in its answer.
        let (sdesAnswer, sdesBob) = try SessionDescription(parsing: text).answer(from: Self.local(.sdes)) { .random(profile: $0) }
        #expect(sdesBob.receivingKey == keys[0] && sdesBob.dtls == nil)
        #expect(sdesAnswer.audio?.crypto.map(\.tag) == [1] && sdesAnswer.audio?.dtls.isEmpty == true)
        #expect(!sdesAnswer.formatted.contains("a=fingerprint") && !sdesAnswer.formatted.contains("a=setup"))
        let sdesAlice = try SessionDescription(parsing: sdesAnswer.formatted).negotiated(offer: offer)
        #expect(sdesAlice.keying == .sdes(sending: keys[0], receiving: try #require(sdesBob.sendingKey)))

        // A DTLS answerer (DTLS only, or either): the fingerprint, on the offer's profile.
        for bobExchange in [KeyExchange.dtls(fingerprint: Self.theirs), .dtlsOrSDES(fingerprint: Self.theirs)] {
            let (answer, bob) = try SessionDescription(parsing: text).answer(from: Self.local(bobExchange), key: Self.noSDESKey)
            #expect(bob.dtls == NegotiatedDTLS(role: .client, remoteFingerprints: [Self.ours]), "\(bobExchange)")
            #expect(answer.audio?.profile == "RTP/SAVP" && answer.audio?.crypto.isEmpty == true)
            #expect(answer.audio?.dtls == DTLSAttributes(fingerprints: [Self.theirs], setup: .active))
            let aliceSide = try SessionDescription(parsing: answer.formatted).negotiated(offer: offer)
            #expect(aliceSide.dtls == NegotiatedDTLS(role: .server, remoteFingerprints: [Self.theirs]))
        }
    }

    /// No way of keying in common, said with both lists; fingerprints we cannot check, said so.
    @Test func noCommonKeyExchangeIsATypedError() throws {
        let dtlsOffer = try SessionDescription.offer(from: Self.local(.dtls(fingerprint: Self.ours)))
        #expect(throws: SessionDescriptionError.noCommonKeyExchange(offered: ["DTLS-SRTP"], accepted: ["SDES"])) {
            try SessionDescription(parsing: dtlsOffer.formatted).answer(from: Self.local(.sdes)) { .random(profile: $0) }
        }
        let sdesOffer = try SessionDescription.offer(from: Self.local(.sdes), keys: [.random(profile: .aesCM128HmacSha1_80)])
        let error = try #require(throws: SessionDescriptionError.self) {
            try SessionDescription(parsing: sdesOffer.formatted).answer(from: Self.local(.dtls(fingerprint: Self.theirs)), key: Self.noSDESKey)
        }
        #expect(error == .noCommonKeyExchange(offered: ["SDES"], accepted: ["DTLS-SRTP"]))
        #expect("\(error)".contains("offered: SDES; we accept DTLS-SRTP"), "\(error)")
        #expect(!"\(error)".contains("inline"), "no key in \(error)")

        let md5Only = dtlsOffer.formatted.replacingOccurrences(of: "a=fingerprint:\(Self.ours.sdpValue)", with: "a=fingerprint:md5 00:11:22:33")
        #expect(throws: SessionDescriptionError.noSupportedFingerprint(hashFunctions: ["md5"])) {
            try SessionDescription(parsing: md5Only).answer(from: Self.local(.dtlsOrSDES(fingerprint: Self.theirs)), key: Self.noSDESKey)
        }
        // An answer keyed in a way we did not offer is refused by the offerer too.
        let (dtlsAnswer, _) = try dtlsOffer.answer(from: Self.local(.dtls(fingerprint: Self.theirs)), key: Self.noSDESKey)
        #expect(throws: SessionDescriptionError.noCommonKeyExchange(offered: ["DTLS-SRTP"], accepted: ["SDES"])) {
            try SessionDescription(parsing: dtlsAnswer.formatted).negotiated(offer: sdesOffer)
        }
    }

    /// RFC 5763 §5 and RFC 4145 §4.1: the offer's a=setup, the answer's, and each side's
    /// DTLS role (absent means active; holdconn leaves no role and is refused).
    @Test(arguments: [
        (DTLSSetup?.some(.actpass), DTLSSetup.active, DTLSRole.client, DTLSRole.server),
        (.some(.passive), .active, .client, .server),
        (.some(.active), .passive, .server, .client),
        (nil, .passive, .server, .client),
    ])
    func theSetupRoleTable(offered: DTLSSetup?, answered: DTLSSetup, answerer: DTLSRole, offerer: DTLSRole) throws {
        let text = Self.offerText(setup: offered)
        let offer = try SessionDescription(parsing: text)
        let (answer, bob) = try offer.answer(from: Self.local(.dtls(fingerprint: Self.ours)), key: Self.noSDESKey)
        #expect(answer.audio?.dtls.setup == answered)
        #expect(answer.formatted.contains("a=setup:\(answered.rawValue)\r\n"))
        #expect(bob.dtls?.role == answerer)
        let alice = try SessionDescription(parsing: answer.formatted).negotiated(offer: offer)
        #expect(alice.dtls?.role == offerer)
        #expect(alice.dtls?.role != bob.dtls?.role, "one client, one server")
    }

    @Test func setupsThatLeaveNoRoleAreRefused() throws {
        #expect(throws: SessionDescriptionError.unacceptableSetup(.holdconn)) {
            try SessionDescription(parsing: Self.offerText(setup: .holdconn)).answer(from: Self.local(.dtls(fingerprint: Self.ours)),
                                                                                    key: Self.noSDESKey)
        }
        // The offerer's side: an answer may not say actpass or holdconn, nor take the offer's own side.
        let offer = try SessionDescription.offer(from: Self.local(.dtls(fingerprint: Self.ours)))
        let (answer, _) = try offer.answer(from: Self.local(.dtls(fingerprint: Self.theirs)), key: Self.noSDESKey)
        for setup in [DTLSSetup.actpass, .holdconn] {
            let forged = answer.formatted.replacingOccurrences(of: "a=setup:active", with: "a=setup:\(setup.rawValue)")
            #expect(throws: SessionDescriptionError.unacceptableSetup(setup)) { try SessionDescription(parsing: forged).negotiated(offer: offer) }
        }
        var activeOffer = offer
        activeOffer.audio?.dtls.setup = .active
        #expect(throws: SessionDescriptionError.conflictingSetup(offered: .active, answered: .active)) {
            try SessionDescription(parsing: answer.formatted).negotiated(offer: activeOffer)
        }
        var passiveOffer = offer
        passiveOffer.audio?.dtls.setup = .passive
        let passiveAnswer = answer.formatted.replacingOccurrences(of: "a=setup:active", with: "a=setup:passive")
        #expect(throws: SessionDescriptionError.conflictingSetup(offered: .passive, answered: .passive)) {
            try SessionDescription(parsing: passiveAnswer).negotiated(offer: passiveOffer)
        }
        // An answer without a=setup is passive (RFC 4145 §4.1): fine after actpass or active
        // (we are the client), a conflict after passive.
        let noSetup = try SessionDescription(parsing: answer.formatted.replacingOccurrences(of: "a=setup:active\r\n", with: ""))
        #expect(try noSetup.negotiated(offer: offer).dtls?.role == .client)
        #expect(try noSetup.negotiated(offer: activeOffer).dtls?.role == .client)
        #expect(throws: SessionDescriptionError.conflictingSetup(offered: .passive, answered: nil)) {
            try noSetup.negotiated(offer: passiveOffer)
        }
    }

    /// DTLS, SRTP and SRTCP share one port here: DTLS-SRTP without rtcp-mux is refused both ways.
    @Test func dtlsWithoutRTCPMuxIsRefused() throws {
        let withoutMux = Self.offerText(setup: .actpass).replacingOccurrences(of: "a=rtcp-mux\r\n", with: "")
        #expect(throws: SessionDescriptionError.rtcpMuxRequired) {
            try SessionDescription(parsing: withoutMux).answer(from: Self.local(.dtls(fingerprint: Self.ours)), key: Self.noSDESKey)
        }
        let offer = try SessionDescription.offer(from: Self.local(.dtls(fingerprint: Self.ours)))
        let (answer, _) = try offer.answer(from: Self.local(.dtls(fingerprint: Self.theirs)), key: Self.noSDESKey)
        #expect(throws: SessionDescriptionError.rtcpMuxRequired) {
            try SessionDescription(parsing: answer.formatted.replacingOccurrences(of: "a=rtcp-mux\r\n", with: "")).negotiated(offer: offer)
        }
    }

    /// The offer's mid is answered; a BUNDLE group only when the offer bundles it.
    @Test func theMidIsMirroredAndBundledOnlyWhenOffered() throws {
        let bundled = Self.offerText(setup: .actpass, session: "a=group:BUNDLE a1 v1\r\n", media: "a=mid:a1\r\n")
        let (answer, _) = try SessionDescription(parsing: bundled).answer(from: Self.local(.dtls(fingerprint: Self.ours)), key: Self.noSDESKey)
        #expect(answer.audio?.mid == "a1" && answer.groups == [.bundle(["a1"])])
        let unbundled = Self.offerText(setup: .actpass, session: "a=group:LS a1 v1\r\n", media: "a=mid:a1\r\n")
        let (plain, _) = try SessionDescription(parsing: unbundled).answer(from: Self.local(.dtls(fingerprint: Self.ours)), key: Self.noSDESKey)
        #expect(plain.audio?.mid == "a1" && plain.groups.isEmpty)
        let none = try SessionDescription(parsing: Self.offerText(setup: .actpass)).answer(from: Self.local(.dtls(fingerprint: Self.ours)),
                                                                                          key: Self.noSDESKey).answer
        #expect(none.audio?.mid == nil && none.groups.isEmpty && !none.formatted.contains("a=mid"))
    }

    /// Our ICE side is checked as RFC 8839 asks and written as given; its password is never shown.
    @Test func ourICEIsCheckedWrittenAndNotShown() throws {
        var ice = try Self.ourICE()
        ice.endOfCandidates = true
        var local = Self.local(.sdes)
        local.ice = ice
        let offer = try SessionDescription.offer(from: local, keys: [.random(profile: .aesCM128HmacSha1_80)])
        #expect(offer.formatted.contains("a=ice-ufrag:vEk1\r\na=ice-pwd:Wq0jYl2pQ7nZ3rT5uV8xA1\r\na=ice-options:trickle\r\n"
            + "a=candidate:1 1 UDP 2130706431 203.0.113.5 50000 typ host\r\na=end-of-candidates\r\n"), "\(offer.formatted)")
        #expect(try SessionDescription(parsing: offer.formatted).audioICE == ice.attributesForTest)
        for shown in ["\(ice)", String(reflecting: ice), "\(offer)", "\(offer.audio!.ice)", String(reflecting: offer.audio!.ice)] {
            #expect(!shown.contains("Wq0jYl2pQ7nZ3rT5uV8xA1"), "\(shown)")
        }
        var dumped = ""
        dump(local, to: &dumped)
        #expect(!dumped.contains("Wq0jYl2pQ7nZ3rT5uV8xA1") && dumped.contains("vEk1"), "\(dumped)")

        #expect(throws: ICEAttributeError.invalidField("ice-ufrag", value: "\"abc\"", allowed: "4…256 of A–Z a–z 0–9 + /")) {
            try LocalICE(usernameFragment: "abc", password: "Wq0jYl2pQ7nZ3rT5uV8xA1")
        }
        #expect(throws: ICEAttributeError.invalidField("ice-pwd", value: "<21 characters>", allowed: "22…256 of A–Z a–z 0–9 + /")) {
            try LocalICE(usernameFragment: "abcd", password: "Wq0jYl2pQ7nZ3rT5uV8xA")
        }
        #expect(throws: ICEAttributeError.self) { try LocalICE(usernameFragment: "ab\r\nc", password: "Wq0jYl2pQ7nZ3rT5uV8xA1") }
    }

    /// An offer of one Opus stream keyed by DTLS, with `setup` (none when nil) and extra lines.
    static func offerText(setup: DTLSSetup?, session: String = "", media: String = "") -> String {
        "v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\n" + session
            + "m=audio 40000 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\na=rtcp-mux\r\n"
            + "a=fingerprint:\(theirs.sdpValue)\r\n" + (setup.map { "a=setup:\($0.rawValue)\r\n" } ?? "") + media
    }
}

extension LocalICE {
    /// What an answer or offer writes for it, as the peer reads it back.
    var attributesForTest: ICEAttributes {
        ICEAttributes(usernameFragment: usernameFragment, password: password, options: trickle ? ["trickle"] : [], candidates: candidates,
                      endOfCandidates: endOfCandidates)
    }
}
