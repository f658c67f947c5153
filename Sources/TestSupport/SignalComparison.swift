import Foundation

/// Measures how alike two signals are, for codec and pipeline tests.
public enum SignalComparison {
    /// The best normalised cross-correlation of `signal` against `reference` over lags
    /// `0...maxLag` (signal delayed relative to the reference), and that lag.
    ///
    /// 1 means identical up to gain; a broken codec or a garbled stream stays well below 0.5.
    public static func bestCorrelation(reference: [Int16], signal: [Int16], maxLag: Int) -> (correlation: Double, lag: Int) {
        var best = (correlation: -1.0, lag: 0)
        for lag in 0...maxLag {
            let count = min(reference.count, signal.count - lag)
            guard count > 0 else { break }
            var cross = 0.0, referenceEnergy = 0.0, signalEnergy = 0.0
            for index in 0..<count {
                let r = Double(reference[index]), s = Double(signal[index + lag])
                cross += r * s
                referenceEnergy += r * r
                signalEnergy += s * s
            }
            guard referenceEnergy > 0, signalEnergy > 0 else { continue }
            let correlation = cross / (referenceEnergy * signalEnergy).squareRoot()
            if correlation > best.correlation { best = (correlation, lag) }
        }
        return best
    }

    /// Root-mean-square level in dBFS (0 dB = a full-scale square wave); −infinity for silence.
    public static func rmsDecibels(_ samples: some Collection<Int16>) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        let energy = samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)
        return energy > 0 ? 10 * log10(energy / (32_768.0 * 32_768.0)) : -.infinity
    }
}
