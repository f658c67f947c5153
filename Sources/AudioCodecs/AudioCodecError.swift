// SPDX-License-Identifier: Apache-2.0
// The codec table (AudioCodec, AudioCodecCapabilities) lives in MediaBasics, where signalling
// reads it without linking a codec; re-exported so a coder's users name it from here.
@_exported import MediaBasics
import Opus

/// Why a codec could not be created or could not code a frame.
public enum AudioCodecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libopus refused (the request and its status are in the `OpusError`).
    case opus(OpusError)
    /// The codec does not work at this PCM sample rate (and no resampler could be made for it).
    case unsupportedSampleRate(AudioCodec, Int)
    /// The PCM given to an encoder is not a whole number of the codec's samples, or is empty.
    case invalidFrame(AudioCodec, sampleCount: Int)
    /// A payload that cannot be this codec's: empty, or longer than the decoder takes.
    case invalidPacket(AudioCodec, byteCount: Int)
    /// The output buffer is shorter than what the call would write.
    case bufferTooSmall(AudioCodec, needed: Int, available: Int)
    /// A C library call failed (`function` names it).
    case library(AudioCodec, function: String)

    public var description: String {
        switch self {
        case .opus(let error): "Opus: \(error)"
        case let .unsupportedSampleRate(codec, rate): "\(codec) does not work at \(rate) Hz"
        case let .invalidFrame(codec, count): "\(codec): \(count) samples is not a frame this encoder takes"
        case let .invalidPacket(codec, count): "\(codec): a \(count)-byte payload is not one this decoder takes"
        case let .bufferTooSmall(codec, needed, available): "\(codec): the output needs \(needed), has room for \(available)"
        case let .library(codec, function): "\(codec): \(function) failed"
        }
    }
}
