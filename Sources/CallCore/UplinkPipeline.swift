// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Opus
import RTP
import SRTP

/// One call's send path on the audio thread: PCM frame → Opus → RTP packet, into a buffer
/// it owns with room left for the SRTP trailer, so `SRTPTransportStage` protects it in place.
///
/// Sans-I/O: `process(_:)` returns the packet and the caller protects and sends it. All
/// buffers are allocated in `init`; processing a frame makes no heap allocation. One thread
/// at a time.
public final class UplinkPipeline {
    /// The synchronisation source this pipeline sends as.
    public let ssrc: UInt32
    /// What has been sent so far.
    public private(set) var statistics = OutboundRTPStatistics()

    // The codec's part, exchanged whole by a codec switch (`switchEncoder(exchanging:)`).
    private var configuration: MediaConfiguration
    private var encoder: any AudioEncoder
    /// The Opus encoder inside `encoder`, for the settings only Opus has (nil for G.711/G.722).
    private var opus: OpusEncoder?
    private var sequenceNumber: UInt16
    private var timestamp: UInt32
    private var markNextPacket = true
    /// The last frame was a DTX packet (sent or not): the sender is in a silent run.
    private var isInSilence = false
    private let packet: UnsafeMutableRawBufferPointer

    /// The most bytes one packet can take: header, the largest Opus packet (RFC 6716: 1275
    /// bytes per frame; we cap at 1275 since we send one frame), and the SRTP trailer.
    static let packetCapacity = 12 + 1_275 + SRTPSession.maximumTrailerLength

    /// A pipeline sending as `ssrc`; the first sequence number and timestamp are random
    /// unless given (RFC 3550 §5.1).
    public init(
        configuration: MediaConfiguration,
        ssrc: UInt32 = .random(in: .min ... .max),
        initialSequenceNumber: UInt16 = .random(in: .min ... .max),
        initialTimestamp: UInt32 = .random(in: .min ... .max)
    ) throws(MediaPipelineError) {
        do {
            try configuration.validate()
        } catch {
            throw .configuration(error)
        }
        self.ssrc = ssrc
        self.sequenceNumber = initialSequenceNumber
        self.timestamp = initialTimestamp
        let prepared = try Self.prepareEncoder(for: configuration)
        self.configuration = prepared.configuration
        encoder = prepared.encoder
        opus = prepared.opus
        packet = .allocate(byteCount: Self.packetCapacity, alignment: 8)
        statistics.ssrc = ssrc
        statistics.targetBitrate = configuration.codec.fixedBitrate ?? configuration.bitrate
    }

    deinit {
        packet.deallocate()
    }

    /// The encoder for `configuration`'s codec, set up (Opus's bitrate, complexity, FEC, DTX,
    /// bandwidth), made off the audio thread for `init` or a codec switch.
    package static func prepareEncoder(for configuration: MediaConfiguration) throws(MediaPipelineError) -> PreparedEncoder {
        let encoder: any AudioEncoder
        do {
            encoder = try configuration.codec.makeEncoder(sampleRate: configuration.sampleRate)
        } catch {
            throw .audioCodec(error)
        }
        let opus = (encoder as? OpusAudioEncoder)?.opus
        if let opus {
            do {
                try opus.setBitrate(.bitsPerSecond(configuration.bitrate))
                try opus.setComplexity(configuration.complexity)
                // In-band FEC only while loss is planned for: at 0 % it would cost bits for nothing.
                try opus.setInbandFEC(configuration.inbandFEC && configuration.expectedPacketLossPercent > 0)
                try opus.setExpectedPacketLoss(percent: configuration.expectedPacketLossPercent)
                try opus.setDTX(configuration.discontinuousTransmission)
                try opus.setBitrateMode(configuration.bitrateMode)
                try opus.setMaxBandwidth(configuration.maximumBandwidth)
            } catch {
                throw .codec(error)
            }
        }
        return PreparedEncoder(configuration: configuration, encoder: encoder, opus: opus)
    }

    /// The encoder now, for a codec switch to keep (`CodecSwitch`); only before the call runs
    /// or from the audio side.
    package var currentEncoder: PreparedEncoder { PreparedEncoder(configuration: configuration, encoder: encoder, opus: opus) }

    /// Audio side: sends with `prepared`'s codec and payload type from the next frame on, and
    /// hands the encoder it replaces back in `prepared` (to be freed off the audio thread).
    /// Sequence numbers go on; timestamps go on in the new codec's clock ticks; the first
    /// packet is marked (RFC 3550: the marker may flag a discontinuity). The frame size stays.
    package func switchEncoder(exchanging prepared: inout PreparedEncoder) {
        swap(&configuration, &prepared.configuration)
        swap(&encoder, &prepared.encoder)
        swap(&opus, &prepared.opus)
        markNextPacket = true
        isInSilence = false
        statistics.targetBitrate = configuration.codec.fixedBitrate ?? configuration.bitrate
    }

    /// Encodes, packetises and protects one frame of `samplesPerFrame` mono samples.
    ///
    /// Returns the RTP packet (valid until the next call) in a buffer with room for the SRTP
    /// trailer after `length`, or nil when DTX suppressed the frame (all but the first DTX
    /// packet of a silent run). The RTP timestamp advances either way, so the receiver sees the
    /// silence as a DTX packet, then a timestamp gap with contiguous sequence numbers.
    public func process(_ frame: UnsafeBufferPointer<Int16>) throws(MediaPipelineError) -> (buffer: UnsafeMutableRawBufferPointer, length: Int)? {
        guard frame.count == configuration.samplesPerFrame else {
            throw .wrongFrameSize(expected: configuration.samplesPerFrame, got: frame.count)
        }
        statistics.framesProcessed += 1
        statistics.totalSamplesSent += frame.count
        defer { timestamp &+= configuration.timestampTicksPerFrame }

        let header = RTPHeader(
            marker: markNextPacket, payloadType: configuration.payloadType,
            sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc
        )
        let headerLength: Int
        do {
            headerLength = try header.write(into: packet)
        } catch {
            preconditionFailure("a 12-byte RTP header always fits the uplink packet buffer: \(error)")
        }
        let payloadLength: Int
        do {
            let payload = UnsafeMutableRawBufferPointer(rebasing: packet[headerLength..<(Self.packetCapacity - SRTPSession.maximumTrailerLength)])
            payloadLength = try encoder.encode(frame, into: payload)
        } catch {
            throw .audioCodec(error)
        }
        let isDTX = configuration.discontinuousTransmission && encoder.isSilencePayload(byteCount: payloadLength)
        if isDTX && isInSilence {
            statistics.framesSuppressedByDTX += 1
            markNextPacket = true  // RFC 3551 §4.1: marker on the first packet after silence
            return nil
        }
        // The first DTX packet of a silent run is sent (as WebRTC does): it tells the receiver
        // that the gap which follows is the sender's silence, for its decoder's comfort noise.
        isInSilence = isDTX
        markNextPacket = false
        sequenceNumber &+= 1
        statistics.packetsSent += 1
        statistics.headerBytesSent += headerLength
        statistics.bytesSent += payloadLength
        return (packet, headerLength + payloadLength)
    }

    /// Lets one frame's time pass without sending it (the call is held): the RTP timestamp
    /// advances as if the frame had been sent, so the receiver sees the pause as a gap in
    /// media time, and the next packet carries the marker of a new talkspurt.
    public func skipFrame() {
        timestamp &+= configuration.timestampTicksPerFrame
        markNextPacket = true
        isInSilence = false
        statistics.framesSkipped += 1
    }

    /// The RTP timestamp the next frame will carry.
    public var nextTimestamp: UInt32 { timestamp }

    /// Takes the next `count` sequence numbers for packets this pipeline does not encode
    /// itself (RFC 4733 telephone events share the stream's numbering); returns the first.
    public func reserveSequenceNumbers(_ count: Int) -> UInt16 {
        let first = sequenceNumber
        sequenceNumber &+= UInt16(truncatingIfNeeded: max(0, count))
        return first
    }

    /// Writes an RFC 4733 telephone-event packet (header and 4-byte payload) into the
    /// pipeline's packet buffer, with room for the SRTP trailer after it, and counts it sent.
    /// The packet is valid until the next call.
    public func packetize(_ event: TelephoneEvent, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32,
                          marker: Bool) -> (buffer: UnsafeMutableRawBufferPointer, length: Int) {
        let header = RTPHeader(marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc)
        let length: Int
        do {
            let headerLength = try header.write(into: packet)
            length = headerLength + (try event.encode(into: UnsafeMutableRawBufferPointer(rebasing: packet[headerLength...])))
        } catch {
            preconditionFailure("a 16-byte telephone-event packet always fits the uplink packet buffer: \(error)")
        }
        statistics.packetsSent += 1
        statistics.headerBytesSent += length - TelephoneEvent.encodedLength
        statistics.bytesSent += TelephoneEvent.encodedLength
        return (packet, length)
    }

    /// Lets one frame's time pass while a telephone event stands in for the voice: the
    /// timestamp advances so the voice after the event starts where the event ends.
    public func replaceFrameWithTelephoneEvent() {
        timestamp &+= configuration.timestampTicksPerFrame
        isInSilence = false
        statistics.framesReplacedByTelephoneEvents += 1
    }

    /// Switches the encoder's in-band FEC (LBRR) on or off; a codec without in-band FEC
    /// (G.711, G.722) has nothing to switch and ignores it.
    public func setInbandFEC(_ enabled: Bool) throws(MediaPipelineError) {
        guard let opus else { return }
        do {
            try opus.setInbandFEC(enabled)
        } catch {
            throw .codec(error)
        }
    }

    /// Sets the encoder's target bitrate in bits per second (`OPUS_SET_BITRATE`), reported
    /// as `statistics.targetBitrate`. An Opus ctl: no allocation, no system call.
    /// - Throws: `.configuration` outside Opus's 6–510 kb/s, or for a codec whose rate is fixed.
    public func setBitrate(_ bitsPerSecond: Int) throws(MediaPipelineError) {
        guard let opus else {
            throw .configuration(.invalid(field: "bitrate", reason: "\(configuration.codec) codes at a fixed \(configuration.codec.fixedBitrate ?? 0) b/s"))
        }
        guard (6_000...510_000).contains(bitsPerSecond) else {
            throw .configuration(.invalid(field: "bitrate", reason: "\(bitsPerSecond) b/s is outside Opus's 6–510 kb/s"))
        }
        do {
            try opus.setBitrate(.bitsPerSecond(bitsPerSecond))
        } catch {
            throw .codec(error)
        }
        statistics.targetBitrate = bitsPerSecond
    }

    /// Tells the encoder how much loss to plan in-band FEC for (from RTCP fraction lost); a
    /// codec without in-band FEC ignores it.
    public func setExpectedPacketLoss(percent: Int) throws(MediaPipelineError) {
        guard let opus else { return }
        do {
            try opus.setExpectedPacketLoss(percent: percent)
        } catch {
            throw .codec(error)
        }
    }
}

/// An uplink encoder made off the audio thread (`UplinkPipeline.prepareEncoder(for:)`) for a
/// codec switch, with the configuration it codes for; after the switch, what it replaced.
package struct PreparedEncoder {
    var configuration: MediaConfiguration
    var encoder: any AudioEncoder
    var opus: OpusEncoder?

    /// Whether an encoder made for `configuration` would code as this one does (the same codec
    /// and settings; the payload type is the packetiser's): then a switch keeps this one and
    /// its state.
    func codes(as configuration: MediaConfiguration) -> Bool {
        let current = self.configuration
        return current.codec == configuration.codec && current.sampleRate == configuration.sampleRate
            && (current.codec != .opus || (current.bitrate == configuration.bitrate && current.complexity == configuration.complexity
                && current.inbandFEC == configuration.inbandFEC && current.expectedPacketLossPercent == configuration.expectedPacketLossPercent
                && current.discontinuousTransmission == configuration.discontinuousTransmission
                && current.bitrateMode == configuration.bitrateMode && current.maximumBandwidth == configuration.maximumBandwidth))
    }
}
