// SPDX-License-Identifier: Apache-2.0
/// A target bitrate to give the encoder (`OPUS_SET_BITRATE`).
public enum OpusBitrate: Sendable, Hashable {
    /// The encoder picks a bitrate from the sample rate and channel count (`OPUS_AUTO`,
    /// the default).
    case auto
    /// As many bits as the output buffer allows (`OPUS_BITRATE_MAX`).
    case maximum
    /// A target in bits per second. libopus clamps it to 500…300 000 × channels; it must be
    /// positive.
    case bitsPerSecond(Int)
}
