// SPDX-License-Identifier: Apache-2.0
import SRTP

// Offer/answer (RFC 3264) for one SRTP audio stream with SDES keys (RFC 4568).

extension SessionDescription {
    /// Our offer: `local.codecs` in their order (Opus on `local.opusPayloadType`, the others on
    /// their static payload types), telephone-event on each clock they use (48 kHz for Opus,
    /// 8 kHz for G.711 and G.722), an `a=crypto` line per suite in `local.suites` order (tags
    /// 1, 2, …), rtcp-mux.
    ///
    /// - Parameters:
    ///   - local: where we receive, our payload types, packet time, suites and direction.
    ///   - keys: our key for each suite (one per entry of `local.suites`, same order).
    ///     Keep them: `negotiated(offer:answer:)` needs the offer to find which one was taken.
    /// - Throws: never in practice (tags 1… are valid); typed for the SDES constructor.
    public static func offer(from local: LocalAudio, keys: [SRTPKeyingMaterial]) throws(SDESError) -> SessionDescription {
        var crypto: [SDESCryptoAttribute] = []
        for (index, key) in keys.enumerated() {
            crypto.append(try SDESCryptoAttribute(tag: index + 1, keyingMaterial: key))
        }
        var maps = local.offeredCodecMaps
        if let telephoneEvent = local.telephoneEventPayloadType, local.codecs.contains(.opus) {
            maps.append(RTPMap(payloadType: telephoneEvent, encoding: "telephone-event", clockRate: local.telephoneEventClockRate))
        }
        if let telephoneEvent = local.narrowbandTelephoneEventPayloadType, local.codecs.contains(where: { $0.rtpClockRate == 8_000 }) {
            maps.append(RTPMap(payloadType: telephoneEvent, encoding: "telephone-event", clockRate: 8_000))
        }
        let audio = AudioDescription(port: local.port, payloadTypes: maps.map(\.payloadType), rtpMaps: maps,
                                     formatParameters: local.codecs.contains(.opus) ? [local.opusPayloadType: local.opusFormatParameters] : [:],
                                     crypto: crypto, ptime: local.ptime, rtcpMux: true, direction: local.direction)
        return SessionDescription(origin: local.origin, connection: ConnectionAddress(address: local.address), audio: audio)
    }

    /// Our answer to this offer, and what it settles.
    ///
    /// Picks the offer's first codec that `local.codecs` has (the offerer's preference, RFC 3264
    /// §6.1; a static payload type counts without an `a=rtpmap`), its telephone-event at that
    /// codec's clock (none when the offer has none there), the offer's first `a=crypto` line whose suite we accept
    /// (answered with the same tag and our own key of that suite), rtcp-mux when offered, and
    /// `local.direction` within what the offer allows (its direction reversed).
    ///
    /// - Parameters:
    ///   - local: where we receive, our payload types, packet time, suites and wished direction.
    ///   - key: makes our key for the chosen suite (e.g. `SRTPKeyingMaterial.random`).
    /// - Throws: `.noAudio`, `.audioRejected`, `.notSecure`, `.noConnection`, `.noCommonCodec`
    ///   or `.noCommonSuite`.
    public func answer(from local: LocalAudio, key: (SRTPProfile) -> SRTPKeyingMaterial) throws(SessionDescriptionError)
        -> (answer: SessionDescription, negotiated: NegotiatedAudio)
    {
        let (offered, connection) = try mediaEssentials()
        // The offerer's preference decides (RFC 3264 §6.1): the first of its codecs we have.
        guard let (codec, chosen) = offered.codecs.first(where: { local.codecs.contains($0.codec) }) else {
            throw .noCommonCodec(offered: offered.offeredNames, accepted: local.codecs.map(\.encodingName))
        }
        guard let theirs = offered.crypto.first(where: { local.suites.contains($0.profile) && $0.unprotectingParameter == nil }) else {
            throw .noCommonSuite(offered: offered.crypto.map(\.profile.sdesName) + offered.unsupportedSuites,
                                 accepted: local.suites.map(\.sdesName))
        }
        let ours: SDESCryptoAttribute
        do {
            ours = try SDESCryptoAttribute(tag: theirs.tag, keyingMaterial: key(theirs.profile))
        } catch {
            // The tag came from a parsed line, so it is valid.
            throw .noCommonSuite(offered: [theirs.profile.sdesName], accepted: local.suites.map(\.sdesName))
        }
        // Events share the voice's RTP clock (RFC 4733 §2.1): one at another rate is not taken.
        let telephoneEvent = offered.telephoneEvent(preferringClockRate: codec.rtpClockRate).flatMap {
            $0.clockRate == codec.rtpClockRate ? $0 : nil
        }
        var maps = [chosen]
        if let telephoneEvent { maps.append(telephoneEvent) }
        let payloadTypes = maps.map(\.payloadType)
        let direction = local.direction.intersection(audioDirection.reversed)
        let audio = AudioDescription(port: local.port, payloadTypes: payloadTypes, rtpMaps: maps,
                                     formatParameters: codec == .opus ? [chosen.payloadType: local.opusFormatParameters] : [:],
                                     crypto: [ours], ptime: local.ptime, rtcpMux: offered.rtcpMux, direction: direction)
        let answer = SessionDescription(origin: local.origin, connection: ConnectionAddress(address: local.address), audio: audio)
        let negotiated = NegotiatedAudio(
            remoteAddress: connection.address, remotePort: offered.port, codec: codec, payloadType: chosen.payloadType,
            peerFormatParameters: offered.formatParameters[chosen.payloadType] ?? "", telephoneEvent: telephoneEvent,
            peerPtime: offered.ptime, rtcpMux: offered.rtcpMux,
            sendingKey: ours.keyingMaterial, receivingKey: theirs.keyingMaterial, direction: direction)
        return (answer, negotiated)
    }

    /// What our `offer` and this, the peer's answer to it, settle (the direction: what we
    /// offered within the answer's reversed).
    ///
    /// - Throws: `.noCommonSuite` when the answer's `a=crypto` tag is not one we offered with
    ///   the same suite, or what `answer(from:key:)` throws for a missing part.
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
        guard let theirs = answered.crypto.first,
              let ours = offer.audio?.crypto.first(where: { $0.tag == theirs.tag && $0.profile == theirs.profile })
        else {
            throw .noCommonSuite(offered: answered.crypto.map(\.profile.sdesName) + answered.unsupportedSuites,
                                 accepted: offer.audio?.crypto.map(\.profile.sdesName) ?? [])
        }
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
            sendingKey: ours.keyingMaterial, receivingKey: theirs.keyingMaterial,
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
