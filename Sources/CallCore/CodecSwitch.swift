// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import JitterBuffer

/// A codec switch on a running call (`CallMedia.switchCodec(to:)`), made on the control side
/// for the audio side to take in one exchange: the configuration each of its parts reads, the
/// uplink's new encoder and the jitter buffer's decoders. The audio side swaps each field with
/// what it holds, so afterwards this carries the replaced ones back to be freed off the audio
/// thread.
struct CodecSwitch {
    /// The configuration the call's own audio side reads (DTMF, FEC and bitrate settings).
    var configuration: MediaConfiguration
    /// The receive side's copy (telephone-event payload type and clock).
    var inboundConfiguration: MediaConfiguration
    /// The uplink's encoder, with its own copy of the configuration.
    var encoder: PreparedEncoder
    /// The jitter buffer's decoders, one per payload type the peer may send.
    var decoders: PreparedDecoders
    /// Whether the new codec takes a bit rate (read here: its capability set is built from an
    /// array literal, which allocates).
    var adjustsBitrate: Bool
}

extension CodecSwitch {
    /// The switch from `current` to `requested`, its encoder and decoders made here (off the
    /// audio thread): `encoder` is kept if it codes as `requested` asks (only the payload types
    /// changed), and so are the decoders of `decoders` for a payload type and codec that stay.
    /// The call goes on receiving what it received (the peer's packets in flight, or a peer
    /// late to switch): `configuration.alternativeReceiveCodecs` keeps the payload types of
    /// `current` that `requested` does not reuse.
    /// - Throws: `.configuration` for an invalid `requested` or one that changes what a running
    ///   call keeps (anything but the codec, payload types, telephone-event and the Opus
    ///   settings: rate, frame, suite, limits, jitter buffer); `.pipeline` or `.jitterBuffer`
    ///   when a coder cannot be made.
    init(from current: MediaConfiguration, to requested: MediaConfiguration,
         reusing encoder: PreparedEncoder, _ decoders: PreparedDecoders) throws(CallMediaError) {
        do {
            try requested.validate()
        } catch {
            throw .configuration(error)
        }
        if let kept = Self.keptFieldChanged(from: current, to: requested) {
            throw .configuration(.invalid(field: kept, reason: "a running call keeps it (make new media for another)"))
        }
        var receiving = requested
        for (payloadType, codec) in [(current.payloadType, current.codec)] + current.alternativeReceiveCodecs.map({ ($0.key, $0.value) })
        where payloadType != requested.payloadType && requested.alternativeReceiveCodecs[payloadType] == nil
            && payloadType != requested.telephoneEventPayloadType {
            receiving.alternativeReceiveCodecs[payloadType] = codec
        }
        var sending = encoder
        if encoder.codes(as: receiving) {
            sending.configuration = receiving
        } else {
            do {
                sending = try UplinkPipeline.prepareEncoder(for: receiving)
            } catch {
                throw .pipeline(error)
            }
        }
        let prepared: PreparedDecoders
        do {
            prepared = try AdaptiveJitterBuffer.prepareDecoders(for: receiving.playoutConfiguration, reusing: decoders)
        } catch {
            throw .jitterBuffer(error)
        }
        self.init(configuration: receiving, inboundConfiguration: receiving, encoder: sending, decoders: prepared,
                  adjustsBitrate: receiving.codec.capabilities.contains(.adjustableBitrate))
    }

    /// The first field a codec switch may not change that `requested` changes, or nil.
    private static func keptFieldChanged(from current: MediaConfiguration, to requested: MediaConfiguration) -> String? {
        let named: [(String, Bool)] = [
            ("sampleRate", current.sampleRate != requested.sampleRate),
            ("frameDurationMs", current.frameDurationMs != requested.frameDurationMs),
            ("srtpProfile", current.srtpProfile != requested.srtpProfile),
            ("jitterBuffer", current.jitterBuffer != requested.jitterBuffer),
        ]
        if let changed = named.first(where: \.1) { return changed.0 }
        var comparable = requested
        comparable.codec = current.codec
        comparable.payloadType = current.payloadType
        comparable.alternativeReceiveCodecs = current.alternativeReceiveCodecs
        comparable.telephoneEventPayloadType = current.telephoneEventPayloadType
        comparable.telephoneEventClockRate = current.telephoneEventClockRate
        comparable.bitrate = current.bitrate
        comparable.minimumBitrate = current.minimumBitrate
        comparable.bitrateMode = current.bitrateMode
        comparable.maximumBandwidth = current.maximumBandwidth
        comparable.complexity = current.complexity
        comparable.inbandFEC = current.inbandFEC
        comparable.expectedPacketLossPercent = current.expectedPacketLossPercent
        comparable.discontinuousTransmission = current.discontinuousTransmission
        return comparable == current ? nil : "a limit or setting other than the codec's"
    }
}

/// The control side's view of codec switches: the configuration the last one set, the
/// encoder and decoders it made (to keep in the next), and the configuration waiting for the
/// network side.
struct CodecSwitchState {
    var configuration: MediaConfiguration
    var encoder: PreparedEncoder
    var decoders: PreparedDecoders
    var pendingNetwork: MediaConfiguration?
}
