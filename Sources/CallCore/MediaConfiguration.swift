// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import JitterBuffer
import Opus
import RTP
import SRTP

/// The media parameters one side of a call uses, as an SDP offer/answer would settle them.
public struct MediaConfiguration: Sendable, Equatable {
    /// The codec the call sends and expects (Opus by default; PCMU, PCMA or G.722 as a SIP
    /// trunk or gateway negotiates). The settings below named for Opus apply only to Opus.
    public var codec = AudioCodec.opus
    /// The pipeline's sample rate: the PCM the call takes and plays (8, 12, 16, 24 or 48 kHz).
    /// Opus codes at it directly; G.711 (8 kHz) and G.722 (16 kHz) are resampled to it. The
    /// RTP clock is the codec's (`codec.rtpClockRate`), not this.
    public var sampleRate: Int = 48_000
    /// Samples per channel in one frame; 20 ms by default.
    public var frameDurationMs: Int = 20
    /// The RTP payload type of `codec`: a dynamic one (96–127) for Opus, the static one
    /// (0, 8, 9) or a dynamic one for the others.
    public var payloadType: UInt8 = 111
    /// Payload types besides `payloadType` the peer may send, with their codecs: an answer that
    /// lists several formats lets its sender switch among them without a new offer (RFC 3264
    /// §5.1). The call sends `codec` only; it plays each of these with a decoder of its own
    /// (`JitterBufferConfiguration.payloadTypes`). Empty by default.
    public var alternativeReceiveCodecs: [UInt8: AudioCodec] = [:]
    /// Target Opus bitrate in bits per second: where a call starts and, with `adaptsBitrate`,
    /// the most it returns to (a peer's `maxaveragebitrate` caps it, `applying(peer:ptime:)`).
    /// 32 kb/s by default (WebRTC's for fullband mono voice), measured against 24 in
    /// `benchmarks quality`: every network +0.12 to +0.32 PESQ-WB (clean 3.79 → 4.10, the
    /// G.1050 classes' mean 2.97 → 3.23 with the same FEC plan), the demo's network +0.17 and
    /// +0.22 each way; 40 kb/s measured +0.15 and +0.28 more on the demo (docs/performance.md).
    public var bitrate: Int = MediaConfiguration.defaultBitrate
    /// `bitrate`'s default, 32 kb/s.
    public static let defaultBitrate = 32_000
    /// The least the bitrate adaptation lowers the bitrate to under congestion, in bits per
    /// second (`bitrate` when that is lower). 18 kb/s: the lowest rate at which libopus 1.3.1
    /// (complexity 10, 20 ms) still codes in-band FEC for 6–30 % planned loss — below it FEC
    /// disappears altogether at 6–15 % — measured on the speech fixture; lower floors trade
    /// away the FEC the loss calls for.
    public var minimumBitrate: Int = 18_000
    /// Whether the far end's RTCP reports of congestion (loss while its delay or jitter rises)
    /// lower the bitrate towards `minimumBitrate`, and clean reports raise it back to
    /// `bitrate` (`BitrateAdaptation`). On a clean network the bitrate stays at `bitrate`.
    public var adaptsBitrate = true
    /// How Opus spends the bitrate: constrained VBR (libopus's default), VBR, or CBR (a
    /// peer's `cbr=1`).
    public var bitrateMode: OpusBitrateMode = .constrainedVBR
    /// The widest audio bandwidth the encoder may code (a peer's `maxplaybackrate` narrows
    /// it); fullband by default. Not `.auto`.
    public var maximumBandwidth: OpusBandwidth = .fullband
    /// Opus encoder complexity, 0–10. 10 by default: it costs about 300 µs per 20 ms frame
    /// here (1.5 % of one core, `benchmarks opus`), and complexity 5 loses half a PESQ point.
    public var complexity: Int = 10
    /// Opus in-band FEC (`useinbandfec=1`).
    public var inbandFEC: Bool = true
    /// Loss the encoder plans in-band FEC for at the start, in percent (0: none until the far
    /// end reports loss or, with `adaptsToLoss`, its stream loses packets or comes with a late
    /// path's jitter on the way here).
    public var expectedPacketLossPercent: Int = 0
    /// Whether the far end's RTCP reports of loss set `expectedPacketLossPercent` as the call
    /// goes (`LossAdaptation`): no in-band FEC on a clean network, FEC for the loss reported;
    /// until the reports have covered 150 of our packets, the smallest plan once the far end's
    /// stream has lost packets on its way here or comes with more than 15 ms of jitter.
    public var adaptsToLoss = true
    /// Opus DTX (`usedtx=1`): near-silent frames are not sent.
    public var discontinuousTransmission: Bool = false
    /// SRTP crypto suite offered in SDES.
    public var srtpProfile: SRTPProfile = .aesCM128HmacSha1_80
    /// Payload type negotiated for RFC 4733 telephone events (`telephone-event`), or nil when
    /// none was: such packets are then counted as an unknown payload type.
    public var telephoneEventPayloadType: UInt8? = 101
    /// Clock rate of the negotiated `telephone-event` (8 000 or 48 000 Hz).
    public var telephoneEventClockRate: Int = 48_000
    /// Largest datagram a call accepts, in bytes (an Ethernet MTU); larger ones are dropped
    /// and counted, never truncated into a packet.
    public var maximumDatagramBytes: Int = 1_500
    /// Received packets queued between the network and the audio side at most (1.28 s of
    /// 10 ms packets arriving at once after a stall); beyond it packets are dropped and counted.
    public var receiveQueuePackets: Int = 128
    /// No packet for this long, while not held, raises a remote-silence event, in ms.
    public var remoteSilenceTimeoutMs: Int = 2_000
    /// Consecutive SRTP authentication failures that raise an event (a wrong key, or an
    /// attacker), counted again after every authenticated packet.
    public var srtpFailureEventThreshold: Int = 10
    /// Whether RTCP may use RFC 3550 §6.2's reduced minimum interval, 360 / session kb/s
    /// seconds, where that is below 5 s (sessions above 72 kb/s).
    public var rtcpReducedMinimum = false
    /// Playout: delay bounds, late-packet policy, the delay outside the buffer its target is
    /// priced with. Its sample rate, frame duration, codec and the codec its target prices late
    /// packets for are taken from this configuration (the codec played first, Opus at `bitrate`).
    public var jitterBuffer = JitterBufferConfiguration()

    /// The built-in defaults: 48 kHz mono Opus, 20 ms, 32 kb/s, FEC, AES_CM_128_HMAC_SHA1_80.
    public init() {}

    /// Samples in one frame (mono).
    public var samplesPerFrame: Int { sampleRate * frameDurationMs / 1_000 }

    /// The jitter buffer's configuration with this call's rate, frame duration and codec.
    var playoutConfiguration: JitterBufferConfiguration {
        var settings = jitterBuffer
        settings.sampleRate = sampleRate
        settings.frameDurationMs = frameDurationMs
        settings.codec = codec
        // The peer's bitrate is not known here; a call's is usually what both ends asked for.
        settings.delayPricing.codec = .playing(codec, opusBitsPerSecond: Double(bitrate))
        settings.payloadTypes = alternativeReceiveCodecs.isEmpty ? [:] : alternativeReceiveCodecs.merging([payloadType: codec]) { $1 }
        return settings
    }

    /// RTP timestamp ticks per frame on the codec's RTP clock (48 kHz for Opus, 8 kHz for G.711 and G.722).
    public var timestampTicksPerFrame: UInt32 { UInt32(codec.rtpClockRate / 1_000 * frameDurationMs) }

    /// Refuses values no call could use, naming the field.
    public func validate() throws(MediaConfigurationError) {
        guard OpusStreamFormat.isSupported(sampleRate: sampleRate) else {
            throw .invalid(field: "sampleRate", reason: "\(sampleRate) Hz is not an Opus rate (8, 12, 16, 24 or 48 kHz)")
        }
        guard OpusStreamFormat.isSupported(packetTimeMs: frameDurationMs) else {
            throw .invalid(field: "frameDurationMs", reason: "\(frameDurationMs) ms is not a packet time this pipeline sends (10, 20, 40, 60)")
        }
        guard (96...127).contains(payloadType) || payloadType == codec.staticPayloadType else {
            throw .invalid(field: "payloadType", reason: "\(payloadType) is not a dynamic payload type (96–127)"
                           + (codec.staticPayloadType.map { " nor \(codec)'s static \($0)" } ?? ""))
        }
        for (alternative, alternativeCodec) in alternativeReceiveCodecs.sorted(by: { $0.key < $1.key }) {
            guard (96...127).contains(alternative) || alternative == alternativeCodec.staticPayloadType,
                  alternative != payloadType, alternative != telephoneEventPayloadType else {
                throw .invalid(field: "alternativeReceiveCodecs",
                               reason: "\(alternative) for \(alternativeCodec) is neither a free dynamic payload type (96–127) nor its static one")
            }
        }
        guard (6_000...510_000).contains(bitrate) else {
            throw .invalid(field: "bitrate", reason: "\(bitrate) b/s is outside Opus's 6–510 kb/s")
        }
        guard (6_000...510_000).contains(minimumBitrate) else {
            throw .invalid(field: "minimumBitrate", reason: "\(minimumBitrate) b/s is outside Opus's 6–510 kb/s")
        }
        guard maximumBandwidth != .auto else {
            throw .invalid(field: "maximumBandwidth", reason: "a cap must be a bandwidth, not auto")
        }
        guard (0...10).contains(complexity) else { throw .invalid(field: "complexity", reason: "\(complexity) is outside 0–10") }
        guard (0...100).contains(expectedPacketLossPercent) else {
            throw .invalid(field: "expectedPacketLossPercent", reason: "\(expectedPacketLossPercent) is outside 0–100")
        }
        if let telephoneEventPayloadType {
            guard (96...127).contains(telephoneEventPayloadType), telephoneEventPayloadType != payloadType else {
                throw .invalid(field: "telephoneEventPayloadType",
                               reason: "\(telephoneEventPayloadType) is not a dynamic payload type other than \(codec)'s \(payloadType)")
            }
        }
        guard telephoneEventClockRate == 8_000 || telephoneEventClockRate == 48_000 else {
            throw .invalid(field: "telephoneEventClockRate", reason: "\(telephoneEventClockRate) Hz is not 8000 or 48000")
        }
        guard (RTPPacketView.fixedHeaderLength...65_535).contains(maximumDatagramBytes) else {
            throw .invalid(field: "maximumDatagramBytes", reason: "\(maximumDatagramBytes) is outside 12–65535")
        }
        guard (2...4_096).contains(receiveQueuePackets) else {
            throw .invalid(field: "receiveQueuePackets", reason: "\(receiveQueuePackets) is outside 2–4096")
        }
        guard (100...3_600_000).contains(remoteSilenceTimeoutMs) else {
            throw .invalid(field: "remoteSilenceTimeoutMs", reason: "\(remoteSilenceTimeoutMs) ms is outside 100 ms – 1 h")
        }
        guard (1...1_000_000).contains(srtpFailureEventThreshold) else {
            throw .invalid(field: "srtpFailureEventThreshold", reason: "\(srtpFailureEventThreshold) is outside 1–1000000")
        }
    }
}

/// A configuration value that was refused.
public enum MediaConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `field` cannot take the value given, because `reason`.
    case invalid(field: String, reason: String)

    public var description: String {
        switch self {
        case let .invalid(field, reason): return "invalid media configuration \(field): \(reason)"
        }
    }
}
