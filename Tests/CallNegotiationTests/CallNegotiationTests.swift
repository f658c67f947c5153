// SPDX-License-Identifier: Apache-2.0
import CallCore
import CallNegotiation
import Foundation
import MediaEngineTesting
import SRTP
import SessionDescription
import Testing
import Transport
import TestSupport

/// From an SDP offer and answer, as text, to two calls that talk: the library's one step
/// (`NegotiatedAudio.makeCallMedia`), and SIP hold and resume by re-offer.
@Suite struct CallNegotiationTests {
    /// The fixture three times over (24 s): talk through a hold long enough for RTCP's interval.
    static let speech: [Int16] = {
        let once = try! SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        return once + once + once
    }()
    static let frame = 960

    /// Alice offers with `aliceAudio`, Bob answers with `bobAudio`; both sides parse what the
    /// other wrote (as a SIP stack hands it over) and settle.
    static func negotiate(alice aliceAudio: LocalAudio, bob bobAudio: LocalAudio) throws
        -> (alice: NegotiatedAudio, bob: NegotiatedAudio)
    {
        let keys = aliceAudio.suites.map { SRTPKeyingMaterial.random(profile: $0) }
        let offer = try SessionDescription.offer(from: aliceAudio, keys: keys)
        let offerSeenByBob = try SessionDescription(parsing: offer.formatted)
        let (answer, bobSide) = try offerSeenByBob.answer(from: bobAudio) { SRTPKeyingMaterial.random(profile: $0) }
        let aliceSide = try SessionDescription(parsing: answer.formatted).negotiated(offer: offer)
        return (aliceSide, bobSide)
    }

    static func speaking(_ index: Int, _: CallLoop.Side) -> [Int16] { CallLoop.frame(index, of: speech, length: frame) }
    static func silence(_: Int, _: CallLoop.Side) -> [Int16] { [Int16](repeating: 0, count: frame) }
    static func played(_ side: CallLoop.Side, frames: Range<Int>) -> ArraySlice<Int16> {
        side.played[(frames.lowerBound * frame)..<(frames.upperBound * frame)]
    }

    /// Each side's media from its own view of the exchange: the payload types the offer
    /// chose, the suite, the peer's wishes (Bob asked for 40 ms packets and no FEC), the keys
    /// crossed — and the two calls hear each other.
    @Test func anOfferAndAnAnswerMakeTwoCallsThatTalk() throws {
        var aliceAudio = LocalAudio(address: "192.0.2.1", port: 40_000)
        aliceAudio.opusPayloadType = 109
        aliceAudio.telephoneEventPayloadType = 110
        var bobAudio = LocalAudio(address: "192.0.2.2", port: 50_000)
        bobAudio.ptime = 40
        bobAudio.opusFormatParameters = "useinbandfec=0"
        let (aliceSide, bobSide) = try Self.negotiate(alice: aliceAudio, bob: bobAudio)
        #expect(aliceSide.remoteAddress == "192.0.2.2" && aliceSide.remotePort == 50_000)
        #expect(bobSide.remoteAddress == "192.0.2.1" && bobSide.remotePort == 40_000)

        let aliceConfiguration = try aliceSide.mediaConfiguration()
        #expect(aliceConfiguration.payloadType == 109)
        #expect(aliceConfiguration.telephoneEventPayloadType == 110)
        #expect(aliceConfiguration.srtpProfile == aliceSide.profile)
        #expect(aliceConfiguration.frameDurationMs == 40, "Alice sends what Bob asked for (a=ptime:40)")
        #expect(!aliceConfiguration.inbandFEC, "Bob said useinbandfec=0")
        let bobConfiguration = try bobSide.mediaConfiguration()
        #expect(bobConfiguration.payloadType == 109 && bobConfiguration.frameDurationMs == 20)

        // The loop runs both mixers at one frame duration: the calls talk with Bob at 20 ms.
        bobAudio.ptime = 20
        let (aliceAt20, bobAt20) = try Self.negotiate(alice: aliceAudio, bob: bobAudio)
        let loop = try CallLoop(alice: aliceAt20.makeCallMedia(ssrc: 0xA11C_E000), bob: bobAt20.makeCallMedia(ssrc: 0xB0B0))
        loop.run(frames: 300, aliceMicrophone: Self.speaking, bobMicrophone: Self.speaking)
        #expect(SignalComparison.rmsDecibels(Self.played(loop.bob, frames: 50..<300)) > -40, "Bob hears Alice")
        #expect(SignalComparison.rmsDecibels(Self.played(loop.alice, frames: 50..<300)) > -40, "Alice hears Bob")
        #expect(loop.bob.call.statistics.inbound.packetsLost == 0)
    }

    /// A SIP trunk's answerer: it takes only G.711 A-law, so Alice's Opus-first offer settles
    /// on PCMA (static 8) with DTMF on the 8 kHz clock, and the two calls talk on it; then a
    /// G.722 pair. A key press crosses on the narrowband event.
    @Test(arguments: [AudioCodec.pcma, .g722])
    func aFixedRateCodecChosenByTheAnswerer(codec: AudioCodec) throws {
        let aliceAudio = LocalAudio(address: "192.0.2.1", port: 40_000)
        var bobAudio = LocalAudio(address: "192.0.2.2", port: 50_000)
        bobAudio.codecs = [codec]
        let (aliceSide, bobSide) = try Self.negotiate(alice: aliceAudio, bob: bobAudio)
        #expect(aliceSide.codec == codec && bobSide.codec == codec && aliceSide.payloadType == codec.staticPayloadType)
        #expect(aliceSide.telephoneEvent?.clockRate == 8_000 && aliceSide.telephoneEvent?.payloadType == 100)
        let configuration = try aliceSide.mediaConfiguration()
        #expect(configuration.codec == codec && configuration.payloadType == codec.staticPayloadType)
        #expect(configuration.telephoneEventClockRate == 8_000 && configuration.timestampTicksPerFrame == 160)
        let loop = try CallLoop(alice: aliceSide.makeCallMedia(ssrc: 0xA11C_E000), bob: bobSide.makeCallMedia(ssrc: 0xB0B0))
        try loop.alice.call.sendDTMF(.digit9)
        loop.run(frames: 300, aliceMicrophone: Self.speaking, bobMicrophone: Self.speaking)
        #expect(SignalComparison.rmsDecibels(Self.played(loop.bob, frames: 50..<300)) > -40, "Bob hears Alice")
        #expect(SignalComparison.rmsDecibels(Self.played(loop.alice, frames: 50..<300)) > -40, "Alice hears Bob")
        #expect(loop.bob.call.statistics.inbound.packetsLost == 0)
        // 160 bytes a voice packet, 4 an event packet (the key press's 5 updates and 2 repeated ends).
        let outbound = loop.alice.call.statistics.outbound
        #expect(160 * outbound.packetsSent - outbound.bytesSent == 156 * 7)
        var events: [CallMediaEvent] = []
        loop.bob.call.drainEvents { events.append($0) }
        #expect(events.contains(.dtmfReceived(.digit9, durationMs: 100)))
    }

    /// RFC 3264 § 6.1, every offered direction against every wish of the answerer: the answer
    /// is the wish within the offer reversed, and both sides settle on mirror images.
    @Test(arguments: MediaDirection.allCases, MediaDirection.allCases)
    func directionsSettleAsRFC3264Says(offered: MediaDirection, wished: MediaDirection) throws {
        var aliceAudio = LocalAudio(address: "192.0.2.1", port: 40_000)
        aliceAudio.direction = offered
        var bobAudio = LocalAudio(address: "192.0.2.2", port: 50_000)
        bobAudio.direction = wished
        let (aliceSide, bobSide) = try Self.negotiate(alice: aliceAudio, bob: bobAudio)
        let expected = wished.intersection(offered.reversed)
        #expect(bobSide.direction == expected)
        #expect(aliceSide.direction == expected.reversed)
        // An offer may only be narrowed: Alice never gets more than she offered.
        #expect(aliceSide.direction.intersection(offered) == aliceSide.direction)
        let media = try aliceSide.makeCallMedia()
        #expect(media.direction == aliceSide.direction)
    }

    /// A SIP hold: Alice re-offers `sendonly` (music on hold would go to Bob), Bob answers
    /// `recvonly`; the running calls take the new direction — Bob sends no RTP (RTCP goes
    /// on: 9 s of hold outlast RTCP's longest randomised interval, 7.5 s) and Alice plays
    /// nothing; a re-offer `sendrecv` resumes both ways. Nothing else changed, so the calls go
    /// on in place.
    @Test func holdAndResumeByReOffer() throws {
        var aliceAudio = LocalAudio(address: "192.0.2.1", port: 40_000)
        let bobAudio = LocalAudio(address: "192.0.2.2", port: 50_000)
        let (aliceSide, bobSide) = try Self.negotiate(alice: aliceAudio, bob: bobAudio)
        let loop = try CallLoop(alice: aliceSide.makeCallMedia(ssrc: 0xA11C_E000), bob: bobSide.makeCallMedia(ssrc: 0xB0B0))
        loop.run(frames: 100, aliceMicrophone: Self.speaking, bobMicrophone: Self.speaking)

        // The re-offer keeps the keys (same session, same suite) but changes the direction.
        aliceAudio.direction = .sendOnly
        var heldAlice = aliceSide, heldBob = bobSide
        heldAlice.direction = aliceAudio.direction.intersection(MediaDirection.sendReceive.reversed)
        heldBob.direction = MediaDirection.sendReceive.intersection(aliceAudio.direction.reversed)
        #expect(heldBob.direction == .receiveOnly)
        #expect(aliceSide.differsOnlyInDirectionOrAddress(from: heldAlice))
        heldAlice.applyDirection(to: loop.alice.call)
        heldBob.applyDirection(to: loop.bob.call)
        let bobSentBefore = loop.bob.call.statistics.outbound.packetsSent
        let bobReportsBefore = loop.bob.call.statistics.transport.rtcpPacketsSent
        loop.run(frames: 450, aliceMicrophone: Self.speaking, bobMicrophone: Self.speaking)
        let held = loop.bob.call.statistics
        #expect(held.outbound.packetsSent == bobSentBefore, "Bob sends no RTP while he only receives")
        #expect(held.transport.rtcpPacketsSent > bobReportsBefore, "RTCP goes on")
        #expect(Self.played(loop.alice, frames: 105..<550).allSatisfy { $0 == 0 }, "Alice plays nothing while sending only")
        #expect(SignalComparison.rmsDecibels(Self.played(loop.bob, frames: 105..<550)) > -40, "Bob still hears Alice")

        aliceSide.applyDirection(to: loop.alice.call)
        bobSide.applyDirection(to: loop.bob.call)
        loop.run(frames: 150, aliceMicrophone: Self.speaking, bobMicrophone: Self.speaking)
        #expect(SignalComparison.rmsDecibels(Self.played(loop.alice, frames: 560..<700)) > -40, "Alice hears Bob again")
        #expect(loop.alice.call.statistics.inbound.packetsLost == 0, "a hold is not loss")
    }

    /// A DTLS-SRTP negotiation carries no keys in its SDP: its media is made to be keyed by the
    /// handshake (nothing sent before), the handshake's description carries each side's role and
    /// the other's fingerprint, and a re-negotiation that changes the key exchange, the role or
    /// the peer's certificate needs new media.
    @Test func aDTLSNegotiationMakesMediaKeyedByItsHandshake() throws {
        let aliceCertificate = try DTLSCertificate(), bobCertificate = try DTLSCertificate()
        var alice = LocalAudio(address: "192.0.2.1", port: 40_000)
        alice.keyExchange = .dtls(fingerprint: aliceCertificate.fingerprint)
        var bob = LocalAudio(address: "192.0.2.2", port: 50_000)
        bob.keyExchange = .dtlsOrSDES(fingerprint: bobCertificate.fingerprint)
        let (aliceSide, bobSide) = try Self.negotiate(alice: alice, bob: bob)
        let media = try aliceSide.makeCallMedia()
        #expect(media.isKeyedByHandshake)
        #expect(try bobSide.makeCallMedia().isKeyedByHandshake)
        let aliceKeying = try #require(aliceSide.dtlsKeying(certificate: aliceCertificate))
        let bobKeying = try #require(bobSide.dtlsKeying(certificate: bobCertificate))
        #expect(aliceKeying.configuration.role == .server && bobKeying.configuration.role == .client)
        #expect(aliceKeying.configuration.remoteFingerprints == [bobCertificate.fingerprint])
        #expect(bobKeying.configuration.remoteFingerprints == [aliceCertificate.fingerprint])
        // Unkeyed, it sends nothing (not even RTCP).
        var sent = 0
        media.sendDatagrams(nowMs: 10_000) { _ in sent += 1 }
        #expect(sent == 0)
        // The same negotiation again goes on in place; another key exchange or peer does not.
        #expect(try aliceSide.apply(to: media, replacing: aliceSide) == false)
        let (sdesSide, _) = try Self.negotiate(alice: LocalAudio(address: "192.0.2.1", port: 40_000),
                                               bob: LocalAudio(address: "192.0.2.2", port: 50_000))
        #expect(sdesSide.dtlsKeying(certificate: aliceCertificate) == nil)
        #expect(throws: CallNegotiationError.needsNewMedia("key exchange (SDES and DTLS-SRTP)")) { try sdesSide.apply(to: media, replacing: aliceSide) }
        var stranger = aliceSide
        stranger.keying = .dtls(NegotiatedDTLS(role: .server, remoteFingerprints: [aliceCertificate.fingerprint]))
        #expect(throws: CallNegotiationError.needsNewMedia("the peer's DTLS certificate")) { try stranger.apply(to: media, replacing: aliceSide) }
        var swapped = aliceSide
        swapped.keying = .dtls(NegotiatedDTLS(role: .client, remoteFingerprints: [bobCertificate.fingerprint]))
        #expect(throws: CallNegotiationError.needsNewMedia("DTLS role")) { try swapped.apply(to: media, replacing: aliceSide) }
        #expect(!sdesSide.differsOnlyInDirectionOrAddress(from: aliceSide))
    }

    /// What the running call cannot take in place is said: a new key or packet time needs new
    /// media; a new address or direction does not.
    @Test func renegotiationsThatNeedNewMedia() throws {
        let (aliceSide, _) = try Self.negotiate(alice: LocalAudio(address: "192.0.2.1", port: 40_000),
                                                bob: LocalAudio(address: "192.0.2.2", port: 50_000))
        var moved = aliceSide
        moved.remoteAddress = "198.51.100.7"
        moved.remotePort = 6_000
        moved.direction = .inactive
        #expect(aliceSide.differsOnlyInDirectionOrAddress(from: moved))
        var rekeyed = aliceSide
        rekeyed.keying = .sdes(sending: try #require(aliceSide.sendingKey), receiving: SRTPKeyingMaterial.random(profile: try #require(aliceSide.profile)))
        #expect(!aliceSide.differsOnlyInDirectionOrAddress(from: rekeyed))
        var slower = aliceSide
        slower.peerPtime = 60
        #expect(!aliceSide.differsOnlyInDirectionOrAddress(from: slower))
    }

    /// A peer's wishes that make no configuration are typed errors at the call that received
    /// them: an Opus `a=fmtp` that does not parse, a `maxptime` below every packet we send.
    @Test func badPeerWishesAreTypedErrors() throws {
        let (aliceSide, _) = try Self.negotiate(alice: LocalAudio(address: "192.0.2.1", port: 40_000),
                                                bob: LocalAudio(address: "192.0.2.2", port: 50_000))
        var garbled = aliceSide
        garbled.peerFormatParameters = "maxaveragebitrate=lots"
        #expect {
            _ = try garbled.makeCallMedia()
        } throws: { error in
            guard case .peerFormatParameters = error as? CallNegotiationError else { return false }
            return true
        }
        var impossible = aliceSide
        impossible.peerFormatParameters = "maxptime=5"
        #expect {
            _ = try impossible.mediaConfiguration()
        } throws: { error in
            guard case .configuration = error as? CallNegotiationError else { return false }
            return true
        }
    }

    /// The direction attributes on the wire: media level over session level, `sendrecv`
    /// when neither is written, and what we write reads back the same.
    @Test func directionAttributesParseAndRoundTrip() throws {
        let body = "v=0\r\no=- 1 1 IN IP4 192.0.2.9\r\ns=-\r\nc=IN IP4 192.0.2.9\r\nt=0 0\r\na=inactive\r\n"
            + "m=audio 4000 RTP/SAVP 111\r\na=rtpmap:111 opus/48000/2\r\n"
            + "a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz\r\n"
        let sessionOnly = try SessionDescription(parsing: body)
        #expect(sessionOnly.sessionDirection == .inactive && sessionOnly.audio?.direction == nil)
        #expect(sessionOnly.audioDirection == .inactive)
        let mediaLevel = try SessionDescription(parsing: body + "a=sendonly\r\n")
        #expect(mediaLevel.audioDirection == .sendOnly)
        #expect(try SessionDescription(parsing: mediaLevel.formatted).audioDirection == .sendOnly)
        #expect(try SessionDescription(parsing: sessionOnly.formatted).audioDirection == .inactive)
        let plain = try SessionDescription(parsing: body.replacingOccurrences(of: "a=inactive\r\n", with: ""))
        #expect(plain.audioDirection == .sendReceive)
        #expect(!plain.formatted.contains("a=sendrecv"), "absent stays absent (the default)")
        let offer = try SessionDescription.offer(from: LocalAudio(address: "192.0.2.1", port: 4_000),
                                                 keys: LocalAudio.supportedSuites.map { SRTPKeyingMaterial.random(profile: $0) })
        #expect(offer.formatted.contains("a=sendrecv\r\n"), "our offers say it")
    }

    /// The answer's other codecs reach the call's configuration: its jitter buffer plays them
    /// too (`PeerCodecSwitchTests` plays a switch), and a re-answer without them keeps them.
    @Test func theAnswersOtherCodecsReachTheCall() throws {
        let offer = try SessionDescription.offer(from: LocalAudio(address: "192.0.2.1", port: 4_000),
                                                 keys: [SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)])
        let answer = "v=0\r\no=- 1 1 IN IP4 192.0.2.2\r\ns=-\r\nc=IN IP4 192.0.2.2\r\nt=0 0\r\nm=audio 5000 RTP/SAVP 8 0 100\r\n"
            + "a=rtpmap:100 telephone-event/8000\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz\r\n"
        let negotiated = try SessionDescription(parsing: answer).negotiated(offer: offer)
        let configuration = try negotiated.mediaConfiguration()
        #expect(configuration.codec == .pcma && configuration.payloadType == 8 && configuration.alternativeReceiveCodecs == [0: .pcmu])
        let media = try negotiated.makeCallMedia()
        // A re-answer that lists PCMA alone: the call keeps playing PCMU (it may be in flight).
        var narrowed = negotiated
        narrowed.alternativeReceiveCodecs = [:]
        try narrowed.apply(to: media, replacing: negotiated)
        #expect(media.configuration.codec == .pcma && media.configuration.alternativeReceiveCodecs == [0: .pcmu])
    }
}
