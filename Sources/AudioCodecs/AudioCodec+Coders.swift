// SPDX-License-Identifier: Apache-2.0
import Opus

extension AudioCodec {
    /// An encoder taking mono PCM at `sampleRate`: Opus codes any of its rates itself; the
    /// others are resampled to their own rate first (`ResamplingEncoder`).
    /// - Throws: `AudioCodecError` for a rate Opus does not take or no resampler reaches.
    public func makeEncoder(sampleRate: Int) throws(AudioCodecError) -> any AudioEncoder {
        let native: any AudioEncoder
        switch self {
        case .opus:
            guard OpusStreamFormat.isSupported(sampleRate: sampleRate) else { throw .unsupportedSampleRate(.opus, sampleRate) }
            return try OpusAudioEncoder(sampleRate: sampleRate)
        case .pcmu: native = G711Encoder(law: .muLaw)
        case .pcma: native = G711Encoder(law: .aLaw)
        case .g722: native = try G722Encoder()
        }
        return sampleRate == native.sampleRate ? native : try ResamplingEncoder(native, sampleRate: sampleRate)
    }

    /// A decoder writing mono PCM at `sampleRate`: Opus decodes to any of its rates itself;
    /// the others decode at their own rate and are resampled (`ResamplingDecoder`).
    /// - Throws: `AudioCodecError` for a rate Opus does not take or no resampler reaches.
    public func makeDecoder(sampleRate: Int) throws(AudioCodecError) -> any AudioDecoder {
        let native: any AudioDecoder
        switch self {
        case .opus:
            guard OpusStreamFormat.isSupported(sampleRate: sampleRate) else { throw .unsupportedSampleRate(.opus, sampleRate) }
            return try OpusAudioDecoder(sampleRate: sampleRate)
        case .pcmu: native = G711Decoder(law: .muLaw)
        case .pcma: native = G711Decoder(law: .aLaw)
        case .g722: native = try G722Decoder()
        }
        return sampleRate == native.sampleRate ? native : try ResamplingDecoder(native, sampleRate: sampleRate)
    }
}
