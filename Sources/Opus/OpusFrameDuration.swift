// SPDX-License-Identifier: Apache-2.0
/// The duration of one Opus frame as the encoder accepts it: 2.5, 5, 10, 20, 40 or 60 ms.
public enum OpusFrameDuration: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 2.5 ms (CELT only).
    case ms2_5 = 2500
    /// 5 ms (CELT only).
    case ms5 = 5000
    /// 10 ms.
    case ms10 = 10000
    /// 20 ms, the usual choice for calls.
    case ms20 = 20000
    /// 40 ms.
    case ms40 = 40000
    /// 60 ms.
    case ms60 = 60000

    /// The duration in microseconds (the raw value).
    public var durationMicroseconds: Int { rawValue }

    /// The number of samples per channel in one frame at `sampleRate` (Hz), e.g. 960 for
    /// 20 ms at 48 kHz.
    public func sampleCount(atSampleRate sampleRate: Int) -> Int {
        sampleRate * rawValue / 1_000_000
    }

    /// The frame duration that `sampleCount` samples per channel make at `sampleRate`, or
    /// `nil` if that is not a duration Opus can encode.
    public init?(sampleCount: Int, sampleRate: Int) {
        // In units of 2.5 ms: 1, 2, 4, 8, 16 or 24. Computed without arrays (real-time safe).
        guard sampleRate > 0, sampleCount > 0 else { return nil }
        let quarterUnits = sampleCount * 400
        guard quarterUnits % sampleRate == 0 else { return nil }
        switch quarterUnits / sampleRate {
        case 1: self = .ms2_5
        case 2: self = .ms5
        case 4: self = .ms10
        case 8: self = .ms20
        case 16: self = .ms40
        case 24: self = .ms60
        default: return nil
        }
    }

    /// For example `"2.5 ms"` or `"20 ms"`.
    public var description: String {
        rawValue % 1000 == 0 ? "\(rawValue / 1000) ms" : "\(Double(rawValue) / 1000) ms"
    }
}
