// SPDX-License-Identifier: Apache-2.0
/// Finds the pitch period of a short stretch of speech: the lag at which the signal best
/// matches itself, by normalized cross-correlation.
///
/// A coarse search runs on a copy decimated by 4 (averaging), then the best coarse lag is
/// refined at the full rate within ±4 samples. Scratch memory is allocated once in `init`;
/// `search` never allocates.
public final class PitchPeriodSearch {
    /// Shortest lag searched, in samples (2.5 ms: 400 Hz).
    public let minimumLag: Int
    /// Longest lag searched, in samples (10 ms: 100 Hz).
    public let maximumLag: Int
    private let decimation = 4
    private let decimated: UnsafeMutableBufferPointer<Float>

    /// Creates a search for `sampleRate` (lags 2.5–10 ms) over inputs of up to `maximumFrameCount` samples.
    public init(sampleRate: Int, maximumFrameCount: Int) {
        minimumLag = max(8, sampleRate / 400)
        maximumLag = max(minimumLag + 8, sampleRate / 100)
        decimated = .allocate(capacity: max(1, maximumFrameCount / decimation + 1))
        decimated.initialize(repeating: 0)
    }

    deinit { decimated.deallocate() }

    /// The best lag `T` comparing `x[0..<T]` with `x[T..<2T]` and the normalized correlation
    /// there (−1…1; 0 for silence). Requires `samples.count >= 2 × maximumLag`; shorter input
    /// restricts the search to lags below `samples.count / 2`, and `maximumLag` (when given)
    /// to lags up to it.
    public func search(_ samples: UnsafeBufferPointer<Int16>, maximumLag limit: Int? = nil) -> (lag: Int, correlation: Double) {
        let longest = min(limit ?? maximumLag, maximumLag, (samples.count - 1) / 2)
        guard longest >= minimumLag else { return (0, 0) }
        // Coarse pass at 1/4 rate, comparing a fixed window of `longest` samples.
        let count = samples.count / decimation
        for index in 0..<count {
            var sum: Float = 0
            for k in 0..<decimation { sum += Float(samples[index * decimation + k]) }
            decimated[index] = sum / Float(decimation)
        }
        let window = longest / decimation
        var bestCoarse = minimumLag / decimation
        var bestScore = -Double.infinity
        for lag in max(1, minimumLag / decimation)...(longest / decimation) where lag + window <= count {
            let score = Self.normalizedCorrelation(decimated.baseAddress!, offset: lag, length: window)
            if score > bestScore { bestScore = score; bestCoarse = lag }
        }
        // Fine pass at the full rate around the coarse lag.
        var bestLag = bestCoarse * decimation
        var bestCorrelation = -Double.infinity
        let low = max(minimumLag, bestCoarse * decimation - decimation)
        let high = min(longest, bestCoarse * decimation + decimation)
        guard low <= high else { return (0, 0) }
        for lag in low...high {
            let score = Self.normalizedCorrelation(samples.baseAddress!, offset: lag, length: lag)
            if score > bestCorrelation { bestCorrelation = score; bestLag = lag }
        }
        return (bestLag, bestCorrelation)
    }

    /// Correlation of `x[0..<length]` with `x[offset..<offset+length]`, normalized by both energies.
    @inline(__always)
    private static func normalizedCorrelation<Sample: BinaryInteger>(_ x: UnsafePointer<Sample>, offset: Int, length: Int) -> Double {
        var cross = 0.0, energyA = 0.0, energyB = 0.0
        for index in 0..<length {
            let a = Double(x[index]), b = Double(x[index + offset])
            cross += a * b; energyA += a * a; energyB += b * b
        }
        let denominator = (energyA * energyB).squareRoot()
        return denominator > 0 ? cross / denominator : 0
    }

    @inline(__always)
    private static func normalizedCorrelation(_ x: UnsafePointer<Float>, offset: Int, length: Int) -> Double {
        var cross: Float = 0, energyA: Float = 0, energyB: Float = 0
        for index in 0..<length {
            let a = x[index], b = x[index + offset]
            cross += a * b; energyA += a * a; energyB += b * b
        }
        let denominator = (Double(energyA) * Double(energyB)).squareRoot()
        return denominator > 0 ? Double(cross) / denominator : 0
    }
}
