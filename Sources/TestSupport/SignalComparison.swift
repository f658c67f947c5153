// SPDX-License-Identifier: Apache-2.0
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

    /// How well `signal` carries `reference` when its delay is unknown and may drift (a
    /// jitter buffer stretching time, a codec's look-ahead): the energy-weighted mean, over
    /// segments of `segmentLength` reference samples that carry sound (above −50 dBFS), of
    /// each segment's best normalised correlation with `signal` at a lag in `0...maxLag`.
    ///
    /// The lag is found on a 16× decimated copy first and refined at full rate, so a long
    /// search stays cheap. 1 means the same sound in every segment; speech against other
    /// speech or noise stays below 0.3.
    public static func segmentalCorrelation(reference: [Int16], signal: [Int16], segmentLength: Int, maxLag: Int) -> Double {
        let factor = 16
        let coarseReference = decimated(reference, by: factor)
        let coarseSignal = decimated(signal, by: factor)
        var weighted = 0.0, totalWeight = 0.0
        var start = 0
        while start + segmentLength <= reference.count {
            let energy = reference[start..<(start + segmentLength)].reduce(0.0) { $0 + Double($1) * Double($1) }
            defer { start += segmentLength }
            guard energy / Double(segmentLength) > 32_768.0 * 32_768.0 * 1e-5 else { continue }
            // Coarse: the best lag on the decimated signals.
            let coarseStart = start / factor, coarseLength = segmentLength / factor
            var bestCoarse = (correlation: -2.0, lag: 0)
            for lag in 0...(maxLag / factor) {
                let value = correlation(coarseReference, coarseStart, coarseSignal, coarseStart + lag, coarseLength)
                if value > bestCoarse.correlation { bestCoarse = (value, lag) }
            }
            // Fine: around it, at full rate.
            var best = -1.0
            let centre = bestCoarse.lag * factor
            for lag in max(0, centre - 2 * factor)...min(maxLag, centre + 2 * factor) {
                best = max(best, correlation(reference, start, signal, start + lag, segmentLength))
            }
            weighted += max(best, 0) * energy
            totalWeight += energy
        }
        return totalWeight > 0 ? weighted / totalWeight : 0
    }

    /// Mean of each block of `factor` samples.
    private static func decimated(_ samples: [Int16], by factor: Int) -> [Int16] {
        stride(from: 0, to: samples.count - factor + 1, by: factor).map { start in
            var sum = 0
            for index in start..<(start + factor) { sum += Int(samples[index]) }
            return Int16(sum / factor)
        }
    }

    /// Normalised correlation of `a[aStart..<aStart+count]` with `b[bStart..<bStart+count]`
    /// (the part of `b` past its end counts as silence).
    private static func correlation(_ a: [Int16], _ aStart: Int, _ b: [Int16], _ bStart: Int, _ count: Int) -> Double {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                var cross = 0.0, aEnergy = 0.0, bEnergy = 0.0
                let available = min(count, max(0, b.count - bStart))
                for index in 0..<count {
                    let x = Double(a[aStart + index])
                    aEnergy += x * x
                    guard index < available else { continue }
                    let y = Double(b[bStart + index])
                    cross += x * y
                    bEnergy += y * y
                }
                guard aEnergy > 0, bEnergy > 0 else { return 0 }
                return cross / (aEnergy * bEnergy).squareRoot()
            }
        }
    }

    /// The amplitude (peak, on the 16-bit scale) of the sinusoid at `frequencyHz` in
    /// `samples`, by the Goertzel algorithm: a mix of tones can be checked tone by tone.
    public static func toneAmplitude(_ samples: some Collection<Int16>, frequencyHz: Double, sampleRate: Int) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequencyHz / Double(sampleRate))
        var previous = 0.0, beforePrevious = 0.0
        for sample in samples {
            let current = Double(sample) + coefficient * previous - beforePrevious
            beforePrevious = previous
            previous = current
        }
        let power = previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious
        return 2 * power.squareRoot() / Double(max(1, samples.count))
    }
}
