// SPDX-License-Identifier: Apache-2.0
import CallCore
import SRTP
import SessionDescription
import Transport

extension NegotiatedAudio {
    /// The call's media configuration as offer/answer settled it: `base` (our own choices:
    /// bitrate, processing of the codec, jitter buffer) with the negotiated codec (Opus, G.722,
    /// PCMU or PCMA) and telephone-event payload types, the SRTP suite, and what we send
    /// fitted to the peer's `a=fmtp` (Opus) and `a=ptime` (`MediaConfiguration.applying(peer:ptime:)`).
    ///
    /// - Throws: `.peerFormatParameters` for an Opus `a=fmtp` that does not parse,
    ///   `.configuration` when the result is not a valid configuration (a packet time or
    ///   `maxptime` we cannot meet, or an invalid `base`). A DTLS-SRTP call keeps `base`'s
    ///   `srtpProfile`: its suite is the one its handshake chooses.
    public func mediaConfiguration(base: MediaConfiguration = MediaConfiguration()) throws(CallNegotiationError) -> MediaConfiguration {
        try mediaConfiguration(base: base, packetTime: peerPtime)
    }

    /// `mediaConfiguration(base:)` with `packetTime` as the preferred packet time in place of
    /// the peer's `a=ptime` (still within its `maxptime`/`minptime`).
    private func mediaConfiguration(base: MediaConfiguration, packetTime: Int?) throws(CallNegotiationError) -> MediaConfiguration {
        var configuration = base
        configuration.codec = codec
        configuration.payloadType = payloadType
        configuration.alternativeReceiveCodecs = alternativeReceiveCodecs
        if case let .sdes(sending, _) = keying { configuration.srtpProfile = sending.profile }
        configuration.telephoneEventPayloadType = telephoneEvent?.payloadType
        configuration.telephoneEventClockRate = telephoneEvent?.clockRate ?? codec.rtpClockRate
        // Opus's fmtp shapes what we send; the fixed-rate codecs take only the packet time
        // (applying empty Opus parameters leaves FEC and DTX off, which they do not have).
        var peer = OpusFormatParameters()
        if codec == .opus {
            do {
                peer = try OpusFormatParameters(parsing: peerFormatParameters)
            } catch {
                throw .peerFormatParameters(error)
            }
        }
        do {
            try configuration.validate()
            return try configuration.applying(peer: peer, ptime: packetTime)
        } catch {
            throw .configuration(error)
        }
    }

    /// The call's media, in one step from what offer/answer settled: the configuration
    /// (`mediaConfiguration(base:)`), its SRTP keys (SDES: our key to send with and the peer's
    /// to receive with; DTLS-SRTP: keyed by the handshake that `dtlsKeying(certificate:)`
    /// describes, nothing sent or played before), and the negotiated `direction` (a call on
    /// hold sends or plays nothing). Send its datagrams to `remoteAddress`:`remotePort` (RTCP
    /// there too with `rtcpMux`).
    ///
    /// - Throws: what `mediaConfiguration(base:)` throws, or `.media` when `CallMedia` refuses
    ///   the configuration or the keys.
    public func makeCallMedia(base: MediaConfiguration = MediaConfiguration(),
                              ssrc: UInt32 = .random(in: .min ... .max)) throws(CallNegotiationError) -> CallMedia {
        let configuration = try mediaConfiguration(base: base)
        let protection: MediaProtection
        switch keying {
        case let .sdes(sending, receiving): protection = .srtp(sending: sending, receiving: receiving)
        case .dtls: protection = .srtpKeyedByHandshake
        }
        let media: CallMedia
        do {
            media = try CallMedia(configuration: configuration, protection: protection, ssrc: ssrc)
        } catch {
            throw .media(error)
        }
        media.direction = direction
        return media
    }

    /// The DTLS handshake that keys a DTLS-SRTP call (`CallTransport.dtls`): `certificate` (the
    /// one whose fingerprint our SDP carried), our role from `a=setup`, and the peer's
    /// fingerprints to check its certificate against; nil for a call keyed by SDES.
    public func dtlsKeying(certificate: DTLSCertificate) -> DTLSKeying? {
        guard case let .dtls(negotiated) = keying else { return nil }
        return DTLSKeying(certificate: certificate,
                          configuration: DTLSAssociation.Configuration(role: negotiated.role, remoteFingerprints: negotiated.remoteFingerprints))
    }

    /// Applies this negotiation's direction to a running call, from the next frame on: a SIP
    /// hold (`sendonly` or `inactive` from the holder) and its resume (`sendrecv`) in a
    /// re-offer. Check `differsOnlyInDirectionOrAddress(from:)` first: anything else that
    /// changed needs new media.
    public func applyDirection(to media: CallMedia) {
        media.direction = direction
    }

    /// Applies this re-negotiation of a running call (a re-offer, or the answer to ours) in
    /// place, from `previous` (what the call runs on), without dropping audio:
    /// - another codec, payload types, telephone-event or peer `a=fmtp`: `CallMedia.switchCodec(to:)`
    ///   (the stream goes on; the peer's packets of the old codec still play). `base` is what
    ///   the call's configuration was made from (`mediaConfiguration(base:)`; by default the
    ///   running configuration, so settings the peer narrowed before stay narrowed);
    /// - a new `a=ptime`: a preference (RFC 4566), so the call keeps its packet time while the
    ///   peer's `maxptime`/`minptime` allow it;
    /// - new SRTP keys (`CallMedia.updateKeys`: a key that stayed keeps its rollover counter;
    ///   the replaced receiving key still opens packets in flight);
    /// - the direction (SIP hold and resume).
    ///
    /// A DTLS-SRTP call keeps its keys through a re-offer that keeps the DTLS role and the
    /// peer's fingerprints (RFC 5763: the association goes on).
    ///
    /// Returns whether the peer's address changed: then send to `remoteAddress`:`remotePort`
    /// from now on (the transport's `setRemote`).
    /// - Throws: `.needsNewMedia` for a change a running call cannot take (rtcp-mux, the SRTP
    ///   suite, SDES to DTLS-SRTP or back, a new DTLS role or peer certificate, a packet time
    ///   the peer's limits exclude); `.peerFormatParameters` or
    ///   `.configuration` as `mediaConfiguration(base:)`; `.media` when the call refuses the
    ///   switch or SRTP a key (the codec switch, made first, then stands).
    @discardableResult
    public func apply(to media: CallMedia, replacing previous: NegotiatedAudio,
                      base: MediaConfiguration? = nil) throws(CallNegotiationError) -> Bool {
        let changed: String?
        switch (keying, previous.keying) {
        case (.sdes, .sdes): changed = rtcpMux != previous.rtcpMux ? "rtcp-mux" : profile != previous.profile ? "SRTP suite" : nil
        case let (.dtls(now), .dtls(before)):
            changed = now.role != before.role ? "DTLS role" : now.remoteFingerprints != before.remoteFingerprints ? "the peer's DTLS certificate" : nil
        default: changed = "key exchange (SDES and DTLS-SRTP)"
        }
        if let changed { throw .needsNewMedia(changed) }
        if codec != previous.codec || payloadType != previous.payloadType || alternativeReceiveCodecs != previous.alternativeReceiveCodecs
            || peerFormatParameters != previous.peerFormatParameters || telephoneEvent != previous.telephoneEvent || peerPtime != previous.peerPtime {
            let next = try mediaConfiguration(base: base ?? media.configuration, packetTime: media.frameDurationMs)
            guard next.frameDurationMs == media.frameDurationMs else {
                throw .needsNewMedia("packet time (the peer's limits exclude the call's \(media.frameDurationMs) ms)")
            }
            do {
                try media.switchCodec(to: next)
            } catch {
                throw .media(error)
            }
        }
        if case let .sdes(sending, receiving) = keying, case let .sdes(previousSending, previousReceiving) = previous.keying,
           sending != previousSending || receiving != previousReceiving {
            do {
                try media.updateKeys(sending: sending, receiving: receiving)
            } catch {
                throw .media(error)
            }
        }
        media.direction = direction
        return remoteAddress != previous.remoteAddress || remotePort != previous.remotePort
    }

    /// Whether `updated` (a re-negotiation of this call) differs from this one only in its
    /// direction and the peer's address: then `applyDirection(to:)` and sending to the new
    /// address carry the running call on. New keys too are taken in place by
    /// `apply(to:replacing:)`, as are a new codec, payload types or Opus parameters
    /// (`CallMedia.switchCodec(to:)`).
    public func differsOnlyInDirectionOrAddress(from updated: NegotiatedAudio) -> Bool {
        var comparable = updated
        comparable.direction = direction
        comparable.remoteAddress = remoteAddress
        comparable.remotePort = remotePort
        return comparable == self
    }
}
