// SPDX-License-Identifier: Apache-2.0
import SRTP

// Offer/answer (RFC 3264) for one SRTP audio stream with SDES keys (RFC 4568) or keyed by
// DTLS (RFC 5763): which of them, and the DTLS roles, in SessionDescription+KeyExchange.swift.

extension SessionDescription {
    /// Our offer: `local.codecs` in their order (Opus on `local.opusPayloadType`, the others on
    /// their static payload types), telephone-event on each clock they use (48 kHz for Opus,
    /// 8 kHz for G.711 and G.722), rtcp-mux, `local.ice` when set, and by `local.keyExchange`:
    /// - `.sdes`: `RTP/SAVP` with an `a=crypto` line per key (tags 1, 2, …);
    /// - `.dtls`: `UDP/TLS/RTP/SAVPF` with our `a=fingerprint`, `a=setup:actpass` (RFC 5763
    ///   §5), `a=mid:0` in a session-level `a=group:BUNDLE 0` (what WebRTC answerers expect), and
    ///   no `a=crypto`: `keys` are not written;
    /// - `.dtlsOrSDES`: `RTP/SAVP` with the `a=crypto` lines and our fingerprint with
    ///   `a=setup:actpass`: SDES-only peers answer with a key, DTLS-SRTP ones with theirs.
    ///
    /// - Parameters:
    ///   - local: where we receive, our payload types, packet time, key exchange, suites,
    ///     direction and ICE.
    ///   - keys: our SDES key for each suite (one per entry of `local.suites`, same order);
    ///     none for DTLS-SRTP only. Keep them: `negotiated(offer:)` needs the offer to find
    ///     which one was taken.
    /// - Throws: never in practice (tags 1… are valid); typed for the SDES constructor.
    public static func offer(from local: LocalAudio, keys: [SRTPKeyingMaterial] = []) throws(SDESError) -> SessionDescription {
        var crypto: [SDESCryptoAttribute] = []
        for (index, key) in keys.enumerated() where local.keyExchange.allowsSDES {
            crypto.append(try SDESCryptoAttribute(tag: index + 1, keyingMaterial: key))
        }
        var maps = local.offeredCodecMaps
        if let telephoneEvent = local.telephoneEventPayloadType, local.codecs.contains(.opus) {
            maps.append(RTPMap(payloadType: telephoneEvent, encoding: "telephone-event", clockRate: local.telephoneEventClockRate))
        }
        if let telephoneEvent = local.narrowbandTelephoneEventPayloadType, local.codecs.contains(where: { $0.rtpClockRate == 8_000 }) {
            maps.append(RTPMap(payloadType: telephoneEvent, encoding: "telephone-event", clockRate: 8_000))
        }
        var audio = AudioDescription(port: local.port, payloadTypes: maps.map(\.payloadType), rtpMaps: maps,
                                     formatParameters: local.codecs.contains(.opus) ? [local.opusPayloadType: local.opusFormatParameters] : [:],
                                     crypto: crypto, ptime: local.ptime, rtcpMux: true, direction: local.direction)
        var groups: [MediaGroup] = []
        if let fingerprint = local.keyExchange.dtlsFingerprint {
            audio.dtls = DTLSAttributes(fingerprints: [fingerprint], setup: .actpass)
            if !local.keyExchange.allowsSDES {
                audio.profile = Self.dtlsOfferProfile
                audio.mid = Self.offeredMID
                groups = [.bundle([Self.offeredMID])]
            }
        }
        if let ice = local.ice { audio.ice = ice.attributes }
        var offer = SessionDescription(origin: local.origin, connection: ConnectionAddress(address: local.address), audio: audio)
        offer.groups = groups
        return offer
    }

    /// The profile of a DTLS-SRTP-only offer: WebRTC's (RFC 8829 §5.1.2).
    static let dtlsOfferProfile = "UDP/TLS/RTP/SAVPF"
    /// The `a=mid` of our audio section in a DTLS-SRTP-only offer.
    static let offeredMID = "0"

    /// Our answer to this offer, and what it settles.
    ///
    /// Picks the offer's first codec that `local.codecs` has (the offerer's preference, RFC 3264
    /// §6.1; a static payload type counts without an `a=rtpmap`), its telephone-event at that
    /// codec's clock (none when the offer has none there), rtcp-mux when offered, and
    /// `local.direction` within what the offer allows (its direction reversed). Keys SRTP:
    /// - by DTLS-SRTP when the offer has an `a=fingerprint` and `local.keyExchange` allows it:
    ///   the offer's profile, our fingerprint, `a=setup:active` to an offer's `actpass` or
    ///   `passive` (RFC 5763 §5: the answerer starts the handshake) and `passive` to `active` or
    ///   to no `a=setup` (RFC 4145 §4.1 reads it as `active`), no `a=crypto`;
    /// - else by SDES when the offer has `a=crypto` (or neither) and `local.keyExchange` allows
    ///   it: the offer's first `a=crypto` line whose suite we accept, answered with the same
    ///   tag and our own key of that suite, on `RTP/SAVP`.
    /// The offer's `a=mid` is mirrored, in an `a=group:BUNDLE` of it alone when the offer
    /// bundles it; `local.ice` is written when set.
    ///
    /// - Parameters:
    ///   - local: where we receive, our payload types, packet time, key exchange, suites,
    ///     wished direction and ICE.
    ///   - key: makes our SDES key for the chosen suite (e.g. `SRTPKeyingMaterial.random`); not
    ///     called for DTLS-SRTP.
    /// - Throws: `.noAudio`, `.audioRejected`, `.notSecure`, `.noConnection`, `.noCommonCodec`,
    ///   `.noCommonKeyExchange`, `.noSupportedFingerprint`; for DTLS-SRTP `.unacceptableSetup`
    ///   (`holdconn`) or `.rtcpMuxRequired`; for SDES `.noCommonSuite`.
    public func answer(from local: LocalAudio, key: (SRTPProfile) -> SRTPKeyingMaterial) throws(SessionDescriptionError)
        -> (answer: SessionDescription, negotiated: NegotiatedAudio)
    {
        let (offered, connection) = try mediaEssentials()
        // The offerer's preference decides (RFC 3264 §6.1): the first of its codecs we have.
        guard let (codec, chosen) = offered.codecs.first(where: { local.codecs.contains($0.codec) }) else {
            throw .noCommonCodec(offered: offered.offeredNames, accepted: local.codecs.map(\.encodingName))
        }
        let answered = try answeringKeys(offered, local: local, key: key)
        // Events share the voice's RTP clock (RFC 4733 §2.1): one at another rate is not taken.
        let telephoneEvent = offered.telephoneEvent(preferringClockRate: codec.rtpClockRate).flatMap {
            $0.clockRate == codec.rtpClockRate ? $0 : nil
        }
        var maps = [chosen]
        if let telephoneEvent { maps.append(telephoneEvent) }
        let payloadTypes = maps.map(\.payloadType)
        let direction = local.direction.intersection(audioDirection.reversed)
        var audio = AudioDescription(port: local.port, profile: answered.profile, payloadTypes: payloadTypes, rtpMaps: maps,
                                     formatParameters: codec == .opus ? [chosen.payloadType: local.opusFormatParameters] : [:],
                                     crypto: answered.crypto, ptime: local.ptime, rtcpMux: offered.rtcpMux, direction: direction,
                                     mid: offered.mid, dtls: answered.dtls)
        if let ice = local.ice { audio.ice = ice.attributes }
        var answer = SessionDescription(origin: local.origin, connection: ConnectionAddress(address: local.address), audio: audio)
        // A bundled section stays bundled (RFC 8843): the group of the one we answer.
        if let mid = offered.mid, groups.contains(where: { $0.isBundle && $0.identificationTags.contains(mid) }) {
            answer.groups = [.bundle([mid])]
        }
        let negotiated = NegotiatedAudio(
            remoteAddress: connection.address, remotePort: offered.port, codec: codec, payloadType: chosen.payloadType,
            peerFormatParameters: offered.formatParameters[chosen.payloadType] ?? "", telephoneEvent: telephoneEvent,
            peerPtime: offered.ptime, rtcpMux: offered.rtcpMux, keying: answered.keying, remoteICE: audioICE.nonEmpty, direction: direction)
        return (answer, negotiated)
    }

    /// What our `offer` and this, the peer's answer to it, settle (the direction: what we
    /// offered within the answer's reversed). DTLS-SRTP when the answer has an `a=fingerprint`
    /// and we offered one: the answer's `a=setup:active` makes us the server, `passive` (or
    /// none, which RFC 4145 §4.1 reads as `passive` in an answer) the client; else SDES with
    /// the keys crossed.
    ///
    /// - Throws: `.noCommonSuite` when the answer's `a=crypto` tag is not one we offered with
    ///   the same suite; for DTLS-SRTP `.unacceptableSetup` for an answer's `actpass` or
    ///   `holdconn`, `.conflictingSetup` for a setup our offer's does not allow,
    ///   `.rtcpMuxRequired`; `.noCommonKeyExchange` or `.noSupportedFingerprint` when the answer
    ///   keys SRTP in no way we offered; or what `answer(from:key:)` throws for a missing part.
    public func negotiated(offer: SessionDescription) throws(SessionDescriptionError) -> NegotiatedAudio {
        let (answered, connection) = try mediaEssentials()
        // The answer's codecs that we offered under the same payload type: the first is the
        // one both send; the peer may switch to the others (RFC 3264 §5.1).
        let offeredCodecs = offer.audio?.codecs ?? []
        let common = answered.codecs.filter { answeredCodec in
            offeredCodecs.contains { $0.codec == answeredCodec.codec && $0.map.payloadType == answeredCodec.map.payloadType }
        }
        guard let (codec, chosen) = common.first else {
            throw .noCommonCodec(offered: answered.offeredNames, accepted: offeredCodecs.map(\.codec.encodingName))
        }
        var alternatives: [UInt8: AudioCodec] = [:]
        for (alternative, map) in common.dropFirst() where map.payloadType != chosen.payloadType {
            alternatives[map.payloadType] = alternative
        }
        let keying = try settledKeying(answered, offer: offer)
        // The answer's telephone-event counts only as one of those offered (number and rate).
        let offeredEvents = offer.audio?.rtpMaps.filter(\.isTelephoneEvent) ?? []
        let telephoneEvent = answered.rtpMaps.first { map in
            map.isTelephoneEvent && map.clockRate == codec.rtpClockRate
                && offeredEvents.contains { $0.payloadType == map.payloadType && $0.clockRate == map.clockRate }
        }
        return NegotiatedAudio(
            remoteAddress: connection.address, remotePort: answered.port, codec: codec, payloadType: chosen.payloadType,
            alternativeReceiveCodecs: alternatives,
            peerFormatParameters: answered.formatParameters[chosen.payloadType] ?? "", telephoneEvent: telephoneEvent,
            peerPtime: answered.ptime, rtcpMux: answered.rtcpMux && offer.audio?.rtcpMux == true,
            keying: keying, remoteICE: audioICE.nonEmpty,
            // What we offered, within what the answer allows (an answer may only narrow it).
            direction: offer.audioDirection.intersection(audioDirection.reversed))
    }

    /// The audio section, its connection and its Opus mapping, or the error naming what is missing.
    private func mediaEssentials() throws(SessionDescriptionError) -> (AudioDescription, ConnectionAddress) {
        guard let audio else { throw .noAudio }
        // Port 0 is a rejected or disabled stream (RFC 3264): nothing to send to. The parser
        // refuses it with its line; this covers descriptions built in code.
        guard audio.port != 0 else { throw .audioRejected(line: nil) }
        guard audio.isSecure else { throw .notSecure(profile: audio.profile) }
        guard let connection = audioConnection else { throw .noConnection }
        return (audio, connection)
    }
}

extension LocalAudio {
    /// The `a=rtpmap` of each of our codecs, in our order of preference.
    var offeredCodecMaps: [RTPMap] {
        codecs.map { codec in
            RTPMap(payloadType: codec.staticPayloadType ?? opusPayloadType, encoding: codec.encodingName, clockRate: codec.rtpClockRate,
                   channels: codec.rtpChannels)
        }
    }
}

extension AudioDescription {
    /// What the section lists, for an error: each payload type's encoding where known.
    var offeredNames: [String] {
        payloadTypes.map { payloadType in
            rtpMaps.first { $0.payloadType == payloadType }.map { "\($0.encoding)/\($0.clockRate)" }
                ?? AudioCodec(staticPayloadType: payloadType)?.encodingName ?? "\(payloadType)"
        }
    }
}
