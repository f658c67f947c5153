// SPDX-License-Identifier: Apache-2.0
/// Seeded stationary background noise for tests and benchmarks (a near end's room or
/// microphone noise under the echo).
public enum SyntheticNoise {
    /// `count` samples of noise at `levelDb` dBFS RMS (0 dB: a full-scale square wave): white
    /// (uniform samples) or pink (the white through Paul Kellet's economy pink filter, −3 dB per
    /// octave), the same for the same `seed`.
    public static func samples(count: Int, levelDb: Double, pink: Bool, seed: UInt64) -> [Int16] {
        var generator = SeededGenerator(seed: seed)
        var b0 = 0.0, b1 = 0.0, b2 = 0.0
        var raw = [Double](repeating: 0, count: count)
        for index in 0..<count {
            let white = Double.random(in: -1...1, using: &generator)
            guard pink else { raw[index] = white; continue }
            b0 = 0.99765 * b0 + white * 0.0990460
            b1 = 0.96300 * b1 + white * 0.2965164
            b2 = 0.57000 * b2 + white * 1.0526913
            raw[index] = b0 + b1 + b2 + white * 0.1848
        }
        let rms = (raw.reduce(0) { $0 + $1 * $1 } / Double(max(count, 1))).squareRoot()
        let scale = rms > 0 ? 32_768 * pow(10, levelDb / 20) / rms : 0
        return raw.map { Int16(clamping: Int(($0 * scale).rounded())) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
