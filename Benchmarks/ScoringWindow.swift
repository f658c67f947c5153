// SPDX-License-Identifier: Apache-2.0
/// The rule that cuts every degraded signal before PESQ scores it, the same for the anchor and
/// for every call whatever its FEC plan or network: from just before where the reference's
/// speech starts in it to just past where it would end at that delay.
///
/// A call's received window opens when its pass was sent, so it starts with as much silence as
/// the network and the jitter buffer delayed it (20–700 ms), and ends with the rest of the
/// gap. PESQ finds the delay itself, but silence it is given is not neutral: trailing silence
/// lowers PESQ-WB (on the anchor, 1.5 s of it costs 0.03–0.05, 100 ms about 0.003), so windows
/// that played earlier would be judged on more of it. Cutting at the coarse delay leaves every
/// signal the reference's length plus the same margins.
enum ScoringWindow {
    /// Kept before the coarse start, in samples at 16 kHz (20 ms): the estimate's resolution.
    static let leadSamples = 320
    /// Kept past the reference's length, in samples at 16 kHz (100 ms): room for the jitter
    /// buffer's delay to grow while the speech plays.
    static let tailSamples = 1_600
    /// Envelope block, in samples at 16 kHz (4 ms).
    static let blockSamples = 64

    /// `degraded` cut to the reference's length plus the margins, from its coarse delay
    /// against `reference` (searched up to `maximumDelaySamples`).
    static func cut(_ degraded: [Int16], reference: [Int16], maximumDelaySamples: Int = 24_000) -> [Int16] {
        let delay = coarseDelay(of: degraded, against: reference, maximumDelaySamples: maximumDelaySamples)
        let start = max(0, delay - leadSamples)
        let end = min(degraded.count, delay + reference.count + tailSamples)
        return start < end ? Array(degraded[start..<end]) : degraded
    }

    /// The delay of `signal` against `reference`, in samples, to one envelope block: the lag
    /// whose envelopes (mean magnitude per 4 ms block, mean removed) correlate best.
    static func coarseDelay(of signal: [Int16], against reference: [Int16], maximumDelaySamples: Int) -> Int {
        let referenceEnvelope = envelope(reference)
        let signalEnvelope = envelope(signal)
        let maximumLag = min(maximumDelaySamples / blockSamples, max(0, signalEnvelope.count - 1))
        var bestLag = 0
        var best = -Double.infinity
        for lag in 0...maximumLag {
            var product = 0.0
            var energy = 0.0
            for index in referenceEnvelope.indices {
                let value = lag + index < signalEnvelope.count ? signalEnvelope[lag + index] : 0
                product += referenceEnvelope[index] * value
                energy += value * value
            }
            let score = energy > 0 ? product / energy.squareRoot() : -Double.infinity
            if score > best {
                best = score
                bestLag = lag
            }
        }
        return bestLag * blockSamples
    }

    private static func envelope(_ samples: [Int16]) -> [Double] {
        let blocks = samples.count / blockSamples
        var result = (0..<blocks).map { block in
            samples[(block * blockSamples)..<((block + 1) * blockSamples)].reduce(0.0) { $0 + abs(Double($1)) } / Double(blockSamples)
        }
        let mean = result.isEmpty ? 0 : result.reduce(0, +) / Double(result.count)
        for index in result.indices { result[index] -= mean }
        return result
    }
}
