// SPDX-License-Identifier: Apache-2.0
internal import COpus

/// A hint about the kind of signal being encoded (`OPUS_SET_SIGNAL`).
public enum OpusSignal: Sendable, Hashable, CaseIterable {
    /// No hint; the encoder analyses the signal (`OPUS_AUTO`, the default).
    case auto
    /// Speech: biases mode decisions towards SILK and hybrid (`OPUS_SIGNAL_VOICE`).
    case voice
    /// Music: biases mode decisions towards CELT (`OPUS_SIGNAL_MUSIC`).
    case music

    var cValue: Int32 {
        switch self {
        case .auto: OPUS_AUTO
        case .voice: OPUS_SIGNAL_VOICE
        case .music: OPUS_SIGNAL_MUSIC
        }
    }

    init?(cValue: Int32) {
        switch cValue {
        case OPUS_AUTO: self = .auto
        case OPUS_SIGNAL_VOICE: self = .voice
        case OPUS_SIGNAL_MUSIC: self = .music
        default: return nil
        }
    }
}
