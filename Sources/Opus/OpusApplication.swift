// SPDX-License-Identifier: Apache-2.0
internal import COpus

/// The coding mode an encoder is created for (`OPUS_APPLICATION_*`). Fixed for the
/// encoder's lifetime here.
public enum OpusApplication: Sendable, Hashable, CaseIterable {
    /// Best quality for speech at a given bitrate (`OPUS_APPLICATION_VOIP`); favours SILK,
    /// enables high-pass filtering and speech tuning. The normal choice for calls.
    case voip
    /// Best quality for non-speech signals (`OPUS_APPLICATION_AUDIO`).
    case audio
    /// Lowest delay: CELT only, no SILK or hybrid, lookahead 2.5 ms instead of 6.5 ms
    /// (`OPUS_APPLICATION_RESTRICTED_LOWDELAY`). In-band FEC and DTX have no effect.
    case restrictedLowDelay

    var cValue: Int32 {
        switch self {
        case .voip: OPUS_APPLICATION_VOIP
        case .audio: OPUS_APPLICATION_AUDIO
        case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
        }
    }
}
