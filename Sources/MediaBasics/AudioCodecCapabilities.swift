// SPDX-License-Identifier: Apache-2.0

/// What a codec offers beyond encoding and decoding, so the jitter buffer and the uplink ask
/// the codec instead of assuming Opus.
public struct AudioCodecCapabilities: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The decoder conceals a lost frame from its own state (Opus's PLC). Without it a
    /// decoder conceals by waveform substitution over what it played (`WaveformConcealment`).
    public static let nativeConcealment = AudioCodecCapabilities(rawValue: 1 << 0)
    /// A packet can carry a redundant copy of the previous frame (Opus LBRR).
    public static let inbandFEC = AudioCodecCapabilities(rawValue: 1 << 1)
    /// The encoder can stop sending in silence and the decoder makes comfort noise.
    public static let discontinuousTransmission = AudioCodecCapabilities(rawValue: 1 << 2)
    /// The bit rate can be changed mid-call.
    public static let adjustableBitrate = AudioCodecCapabilities(rawValue: 1 << 3)
}
