import Opus
import RTP
import SRTP

/// The media parameters one side of a call uses, as an SDP offer/answer would settle them.
public struct MediaConfiguration: Sendable, Equatable {
    /// Pipeline and Opus sample rate (Opus's RTP clock is always 48 kHz, RFC 7587).
    public var sampleRate: Int = 48_000
    /// Samples per channel in one frame; 20 ms by default.
    public var frameDurationMs: Int = 20
    /// Dynamic RTP payload type negotiated for Opus.
    public var payloadType: UInt8 = 111
    /// Target Opus bitrate in bits per second.
    public var bitrate: Int = 24_000
    /// Opus encoder complexity, 0–10.
    public var complexity: Int = 5
    /// Opus in-band FEC (`useinbandfec=1`).
    public var inbandFEC: Bool = true
    /// Loss the encoder plans FEC for, in percent (fed from RTCP later).
    public var expectedPacketLossPercent: Int = 10
    /// Opus DTX (`usedtx=1`): near-silent frames are not sent.
    public var discontinuousTransmission: Bool = false
    /// SRTP crypto suite offered in SDES.
    public var srtpProfile: SRTPProfile = .aesCM128HmacSha1_80

    /// The built-in defaults: 48 kHz mono Opus, 20 ms, 24 kb/s, FEC, AES_CM_128_HMAC_SHA1_80.
    public init() {}

    /// Samples in one frame (mono).
    public var samplesPerFrame: Int { sampleRate * frameDurationMs / 1_000 }

    /// RTP timestamp ticks per frame on Opus's 48 kHz RTP clock.
    public var timestampTicksPerFrame: UInt32 { UInt32(48 * frameDurationMs) }

    /// Refuses values no call could use, naming the field.
    public func validate() throws(MediaConfigurationError) {
        guard [8_000, 12_000, 16_000, 24_000, 48_000].contains(sampleRate) else {
            throw .invalid(field: "sampleRate", reason: "\(sampleRate) Hz is not an Opus rate (8, 12, 16, 24 or 48 kHz)")
        }
        guard [10, 20, 40, 60].contains(frameDurationMs) else {
            throw .invalid(field: "frameDurationMs", reason: "\(frameDurationMs) ms is not a packet time this pipeline sends (10, 20, 40, 60)")
        }
        guard (96...127).contains(payloadType) else {
            throw .invalid(field: "payloadType", reason: "\(payloadType) is not a dynamic payload type (96–127)")
        }
        guard (6_000...510_000).contains(bitrate) else {
            throw .invalid(field: "bitrate", reason: "\(bitrate) b/s is outside Opus's 6–510 kb/s")
        }
        guard (0...10).contains(complexity) else { throw .invalid(field: "complexity", reason: "\(complexity) is outside 0–10") }
        guard (0...100).contains(expectedPacketLossPercent) else {
            throw .invalid(field: "expectedPacketLossPercent", reason: "\(expectedPacketLossPercent) is outside 0–100")
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
