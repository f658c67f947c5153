// SPDX-License-Identifier: Apache-2.0
import AudioProcessing

/// Why a `CallMixer` could not be built or could not take a call.
public enum CallMixerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The configuration was refused.
    case configuration(MediaConfigurationError)
    /// Voice processing or resampling could not be set up.
    case processing(SpeexDSPError)
    /// The mixer already mixes `maximumCalls` calls.
    case tooManyCalls(maximum: Int)
    /// The call runs at another rate or frame duration than the mixer.
    case callFormatMismatch(callSampleRate: Int, callFrameDurationMs: Int, mixerSampleRate: Int, mixerFrameDurationMs: Int)
    /// The call is already mixed.
    case callAlreadyAdded

    public var description: String {
        switch self {
        case let .configuration(error): return error.description
        case let .processing(error): return "voice processing: \(error)"
        case let .tooManyCalls(maximum): return "the mixer already mixes its maximum of \(maximum) calls"
        case let .callFormatMismatch(rate, ms, mixerRate, mixerMs):
            return "the call runs at \(rate) Hz in \(ms) ms frames, the mixer at \(mixerRate) Hz in \(mixerMs) ms frames"
        case .callAlreadyAdded: return "the call is already mixed"
        }
    }
}
