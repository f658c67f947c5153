// SPDX-License-Identifier: Apache-2.0
internal import COpus

/// An Opus audio bandwidth (`OPUS_BANDWIDTH_*`), or ``auto`` where a setting allows it.
public enum OpusBandwidth: Sendable, Hashable, CaseIterable {
    /// 4 kHz passband (8 kHz sampling).
    case narrowband
    /// 6 kHz passband (12 kHz sampling).
    case mediumband
    /// 8 kHz passband (16 kHz sampling).
    case wideband
    /// 12 kHz passband (24 kHz sampling).
    case superwideband
    /// 20 kHz passband (48 kHz sampling).
    case fullband
    /// Let the encoder choose (`OPUS_AUTO`). Valid for the forced bandwidth only; never
    /// reported by a packet.
    case auto

    /// The highest sample rate that carries this bandwidth without loss, in Hz
    /// (48000 for ``auto``).
    public var sampleRate: Int {
        switch self {
        case .narrowband: 8000
        case .mediumband: 12000
        case .wideband: 16000
        case .superwideband: 24000
        case .fullband, .auto: 48000
        }
    }

    /// The audio passband this bandwidth codes, in Hz (RFC 6716 §2: 4, 6, 8, 12 and 20 kHz;
    /// 20 kHz for ``auto``).
    public var passbandHz: Int {
        switch self {
        case .narrowband: 4000
        case .mediumband: 6000
        case .wideband: 8000
        case .superwideband: 12000
        case .fullband, .auto: 20000
        }
    }

    /// The widest bandwidth a renderer running at `sampleRate` Hz reproduces: the widest
    /// whose passband fits under its Nyquist frequency (8 kHz → narrowband, 12 kHz →
    /// mediumband, 16 kHz → wideband, 24 and 32 kHz → superwideband, 40 kHz and above →
    /// fullband; narrowband below 8 kHz, the narrowest there is). For an SDP
    /// `maxplaybackrate` (RFC 7587 §6.1): coding audio the far end cannot play wastes bits.
    public init(fittingSampleRate sampleRate: Int) {
        self = switch sampleRate / 2 {
        case OpusBandwidth.fullband.passbandHz...: .fullband
        case OpusBandwidth.superwideband.passbandHz...: .superwideband
        case OpusBandwidth.wideband.passbandHz...: .wideband
        case OpusBandwidth.mediumband.passbandHz...: .mediumband
        default: .narrowband
        }
    }

    var cValue: Int32 {
        switch self {
        case .narrowband: OPUS_BANDWIDTH_NARROWBAND
        case .mediumband: OPUS_BANDWIDTH_MEDIUMBAND
        case .wideband: OPUS_BANDWIDTH_WIDEBAND
        case .superwideband: OPUS_BANDWIDTH_SUPERWIDEBAND
        case .fullband: OPUS_BANDWIDTH_FULLBAND
        case .auto: OPUS_AUTO
        }
    }

    init?(cValue: Int32) {
        switch cValue {
        case OPUS_BANDWIDTH_NARROWBAND: self = .narrowband
        case OPUS_BANDWIDTH_MEDIUMBAND: self = .mediumband
        case OPUS_BANDWIDTH_WIDEBAND: self = .wideband
        case OPUS_BANDWIDTH_SUPERWIDEBAND: self = .superwideband
        case OPUS_BANDWIDTH_FULLBAND: self = .fullband
        case OPUS_AUTO: self = .auto
        default: return nil
        }
    }
}
