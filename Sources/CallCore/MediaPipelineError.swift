// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Opus

/// Why a pipeline could not be built or could not send a frame.
public enum MediaPipelineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The configuration was refused.
    case configuration(MediaConfigurationError)
    /// The Opus codec refused a setting.
    case codec(OpusError)
    /// A codec other than through an Opus setting failed (creating it, or coding a frame).
    case audioCodec(AudioCodecError)
    /// A frame passed to the uplink does not hold `samplesPerFrame` samples.
    case wrongFrameSize(expected: Int, got: Int)

    public var description: String {
        switch self {
        case let .configuration(error): return error.description
        case let .codec(error): return "codec: \(error)"
        case let .audioCodec(error): return "codec: \(error)"
        case let .wrongFrameSize(expected, got): return "frame holds \(got) samples, the pipeline sends \(expected)"
        }
    }
}
