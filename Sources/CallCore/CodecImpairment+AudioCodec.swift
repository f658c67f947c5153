// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import CallQuality

extension CodecImpairment {
    /// `codec` as a call plays it: G.711 and G.722 with their waveform concealment, Opus at
    /// `opusBitsPerSecond` in frames of `frameDurationMs` without FEC.
    static func playing(_ codec: AudioCodec, opusBitsPerSecond: Double, frameDurationMs: Int = 20) -> CodecImpairment {
        switch codec {
        case .pcmu, .pcma: return .g711
        case .g722: return .g722
        case .opus: return .opus(bitsPerSecond: opusBitsPerSecond, frameDurationMs: frameDurationMs)
        }
    }
}
