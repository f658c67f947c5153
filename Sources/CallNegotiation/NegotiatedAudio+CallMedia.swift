// SPDX-License-Identifier: Apache-2.0
import CallCore
import SessionDescription

extension NegotiatedAudio {
    /// The call's media configuration as offer/answer settled it: `base` (our own choices:
    /// bitrate, processing of the codec, jitter buffer) with the negotiated codec (Opus, G.722,
    /// PCMU or PCMA) and telephone-event payload types, the SRTP suite, and what we send
    /// fitted to the peer's `a=fmtp` (Opus) and `a=ptime` (`MediaConfiguration.applying(peer:ptime:)`).
    ///
    /// - Throws: `.peerFormatParameters` for an Opus `a=fmtp` that does not parse,
    ///   `.configuration` when the result is not a valid configuration (a packet time or
    ///   `maxptime` we cannot meet, or an invalid `base`).
    public func mediaConfiguration(base: MediaConfiguration = MediaConfiguration()) throws(CallNegotiationError) -> MediaConfiguration {
        var configuration = base
        configuration.codec = codec
        configuration.payloadType = payloadType
        configuration.alternativeReceiveCodecs = alternativeReceiveCodecs
        configuration.srtpProfile = profile
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
            return try configuration.applying(peer: peer, ptime: peerPtime)
        } catch {
            throw .configuration(error)
        }
    }

    /// The call's media, in one step from what offer/answer settled: the configuration
    /// (`mediaConfiguration(base:)`), our key to send with and the peer's to receive with, and
    /// the negotiated `direction` (a call on hold sends or plays nothing). Send its datagrams
    /// to `remoteAddress`:`remotePort` (RTCP there too with `rtcpMux`).
    ///
    /// - Throws: what `mediaConfiguration(base:)` throws, or `.media` when `CallMedia`
    ///   refuses the configuration or the keys.
    public func makeCallMedia(base: MediaConfiguration = MediaConfiguration(),
                              ssrc: UInt32 = .random(in: .min ... .max)) throws(CallNegotiationError) -> CallMedia {
        let configuration = try mediaConfiguration(base: base)
        let media: CallMedia
        do {
            media = try CallMedia(configuration: configuration, sendingKey: sendingKey, receivingKey: receivingKey, ssrc: ssrc)
        } catch {
            throw .media(error)
        }
        media.direction = direction
        return media
    }

    /// Applies this negotiation's direction to a running call, from the next frame on: a SIP
    /// hold (`sendonly` or `inactive` from the holder) and its resume (`sendrecv`) in a
    /// re-offer. Check `differsOnlyInDirectionOrAddress(from:)` first: anything else that
    /// changed needs new media.
    public func applyDirection(to media: CallMedia) {
        media.direction = direction
    }

    /// Applies this re-negotiation of a running call (a re-offer, or the answer to ours) in
    /// place, from `previous` (what the call runs on): new SRTP keys (`CallMedia.updateKeys`:
    /// a key that stayed keeps its rollover counter; the replaced receiving key still opens
    /// packets in flight) and the direction (SIP hold and resume). Returns whether the peer's
    /// address changed: then send to `remoteAddress`:`remotePort` from now on (the transport's
    /// `setRemote`).
    /// - Throws: `.needsNewMedia` naming what else changed (codec, payload types, packet time,
    ///   the peer's fmtp, telephone-event, rtcp-mux, suite); `.media` when SRTP refuses a key.
    @discardableResult
    public func apply(to media: CallMedia, replacing previous: NegotiatedAudio) throws(CallNegotiationError) -> Bool {
        let changed: String? = codec != previous.codec || payloadType != previous.payloadType
            || alternativeReceiveCodecs != previous.alternativeReceiveCodecs ? "codec or payload type"
            : peerPtime != previous.peerPtime ? "packet time"
            : peerFormatParameters != previous.peerFormatParameters ? "peer a=fmtp"
            : telephoneEvent != previous.telephoneEvent ? "telephone-event"
            : rtcpMux != previous.rtcpMux ? "rtcp-mux"
            : profile != previous.profile ? "SRTP suite" : nil
        if let changed { throw .needsNewMedia(changed) }
        if sendingKey != previous.sendingKey || receivingKey != previous.receivingKey {
            do {
                try media.updateKeys(sending: sendingKey, receiving: receivingKey)
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
    /// `apply(to:replacing:)`; a new suite, payload types, packet time or Opus parameters need
    /// new media.
    public func differsOnlyInDirectionOrAddress(from updated: NegotiatedAudio) -> Bool {
        var comparable = updated
        comparable.direction = direction
        comparable.remoteAddress = remoteAddress
        comparable.remotePort = remotePort
        return comparable == self
    }
}
