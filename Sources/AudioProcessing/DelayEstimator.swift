// SPDX-License-Identifier: Apache-2.0
/// Estimates the bulk delay between a far-end (played) signal and the microphone signal that
/// carries its echo, from the cross-correlation of their decimated envelopes.
///
/// Both signals are cut into 2 ms blocks; each block becomes one envelope value (mean absolute
/// sample) with its slow mean removed (a first-order high-pass at about 1.6 Hz, so the syllable
/// rhythm of speech remains and the level does not). For every lag from 0 to the maximum delay
/// an exponentially weighted cross-correlation (memory about 1.5 s) is updated per block and
/// normalized by both energies. A microphone block counts only while the far end has played
/// within the maximum delay (`farEndActivity`): outside it the microphone can hold no echo, and
/// what it holds — the near end talking alone — would weigh on the normalization for seconds.
/// Every 50 ms the best lag is a *candidate*; it becomes the
/// estimate only when, after 0.5 s of signal, its normalized correlation is at least
/// `minimumConfidence` (0.3) and the same
/// candidate (within one block) has won `requiredAgreements` evaluations in a row: that is the
/// hysteresis that keeps the estimate from jumping on one noisy peak. A delay change
/// (route change, xrun) is followed once the new peak has overtaken the old one.
///
/// All state is allocated in `init`; `process` allocates nothing.
public final class DelayEstimator {
    /// Samples per envelope block (2 ms).
    public let blockCount: Int
    /// The largest delay that can be estimated, in samples.
    public let maximumDelaySamples: Int
    /// Mean absolute sample of a 2 ms block from which the far end counts as playing (about
    /// −50 dBFS RMS for speech, `EchoPathPresence.farEndActivity`'s level). When no far-end block
    /// within the maximum delay reached it, the microphone's block is left out of the
    /// correlation and its energy. Counted, a near end who had talked alone before the far end's
    /// first word (the caller, in most calls) held the normalized correlation down for about
    /// ten seconds (the 1.5 s memory times ln 1000 for a voice 30 dB above its echo): the demo's
    /// caller kept a misaligned or undecided canceller through the callee's first turn and sent
    /// his voice back to him at −40 dBFS (`voicecall demo --fast`, 36 of 40 seeds; −103 dBFS
    /// from his turn's third second on with this).
    public static let farEndActivity = 80.0
    /// Normalized correlation a candidate needs before it is accepted.
    public var minimumConfidence = 0.3
    /// Normalized correlation a candidate needs to *replace* an estimate (at least
    /// `minimumConfidence`): `EchoCanceller` raises it while its filter has converged on the
    /// current one, so a chance peak between two talkers cannot move a working alignment.
    var minimumConfidenceToMove = 0.3
    /// Consecutive evaluations a candidate must win before it replaces the estimate.
    public var requiredAgreements = 3
    /// The current estimate in samples (`nil` until the first confident one).
    public private(set) var delaySamples: Int?
    /// Normalized correlation (0…1) of the last evaluated best lag.
    public private(set) var confidence = 0.0
    /// Whether the far end reached `farEndActivity` within the maximum delay: whether the
    /// microphone may hold its echo now, and the correlation is being updated.
    public var mayHearFarEnd: Bool { blocksSinceFarEndPlayed <= lagCount }

    private let lagCount: Int
    private let forgetting: Double
    private let meanSmoothing = 0.02
    private let evaluationBlocks = 25
    private var farMean = 0.0
    private var micMean = 0.0
    private var micEnergy = 0.0
    private let farHistory: UnsafeMutablePointer<Double>  // 2 × lagCount, written twice
    private var historyPosition = 0
    private let correlation: UnsafeMutablePointer<Double>
    private let farEnergy: UnsafeMutablePointer<Double>
    private var farAccumulator = 0.0
    private var micAccumulator = 0.0
    private var accumulated = 0
    private var blocksSinceEvaluation = 0
    private var candidate = -1
    private var blocksSeen = 0
    /// Blocks of evidence before any estimate (0.5 s): a short correlation memory finds
    /// spurious peaks between unrelated signals.
    private let warmUpBlocks = 250
    private var agreements = 0
    /// Blocks since the far end last reached `farEndActivity` (counted up to `lagCount + 1`).
    private var blocksSinceFarEndPlayed: Int

    /// Creates an estimator for `sampleRate` covering delays up to `maximumDelayMs`.
    public init(sampleRate: Int, maximumDelayMs: Int = 500) {
        blockCount = max(1, sampleRate / 500)
        lagCount = maximumDelayMs / 2 + 1
        maximumDelaySamples = (lagCount - 1) * blockCount
        forgetting = 1.0 - 1.0 / 750.0
        farHistory = .allocate(capacity: 2 * lagCount)
        farHistory.initialize(repeating: 0, count: 2 * lagCount)
        correlation = .allocate(capacity: lagCount)
        correlation.initialize(repeating: 0, count: lagCount)
        farEnergy = .allocate(capacity: lagCount)
        farEnergy.initialize(repeating: 0, count: lagCount)
        blocksSinceFarEndPlayed = lagCount + 1
    }

    deinit {
        farHistory.deallocate()
        correlation.deallocate()
        farEnergy.deallocate()
    }

    /// Forgets everything learnt (the estimate too).
    public func reset() {
        farHistory.update(repeating: 0, count: 2 * lagCount)
        correlation.update(repeating: 0, count: lagCount)
        farEnergy.update(repeating: 0, count: lagCount)
        farMean = 0; micMean = 0; micEnergy = 0
        farAccumulator = 0; micAccumulator = 0; accumulated = 0
        blocksSinceEvaluation = 0; candidate = -1; agreements = 0; blocksSeen = 0
        blocksSinceFarEndPlayed = lagCount + 1
        delaySamples = nil; confidence = 0
    }

    /// Feeds simultaneous far-end and microphone samples (same count). Returns true when the
    /// estimate changed.
    @discardableResult
    public func process(farEnd: UnsafeBufferPointer<Int16>, microphone: UnsafeBufferPointer<Int16>) -> Bool {
        precondition(farEnd.count == microphone.count, "DelayEstimator: far-end and microphone counts differ")
        var changed = false
        for index in 0..<farEnd.count {
            farAccumulator += abs(Double(farEnd[index]))
            micAccumulator += abs(Double(microphone[index]))
            accumulated += 1
            if accumulated == blockCount {
                if addBlock(far: farAccumulator / Double(blockCount), mic: micAccumulator / Double(blockCount)) { changed = true }
                farAccumulator = 0; micAccumulator = 0; accumulated = 0
            }
        }
        return changed
    }

    private func addBlock(far: Double, mic: Double) -> Bool {
        farMean += meanSmoothing * (far - farMean)
        micMean += meanSmoothing * (mic - micMean)
        let farValue = far - farMean
        if far >= Self.farEndActivity {
            blocksSinceFarEndPlayed = 0
        } else if blocksSinceFarEndPlayed <= lagCount {
            blocksSinceFarEndPlayed += 1
        }
        // No far end within the longest delay: no echo in the microphone to correlate.
        let micValue = mayHearFarEnd ? mic - micMean : 0
        historyPosition = historyPosition == 0 ? lagCount - 1 : historyPosition - 1
        farHistory[historyPosition] = farValue
        farHistory[historyPosition + lagCount] = farValue
        // farHistory[historyPosition + lag] is the far envelope `lag` blocks ago.
        let lambda = forgetting
        micEnergy = lambda * micEnergy + micValue * micValue
        let history = farHistory + historyPosition
        for lag in 0..<lagCount {
            let value = history[lag]
            correlation[lag] = lambda * correlation[lag] + micValue * value
            farEnergy[lag] = lambda * farEnergy[lag] + value * value
        }
        blocksSinceEvaluation += 1
        blocksSeen += 1
        guard blocksSinceEvaluation >= evaluationBlocks else { return false }
        blocksSinceEvaluation = 0
        return evaluate()
    }

    private func evaluate() -> Bool {
        var bestLag = -1
        var best = 0.0
        for lag in 0..<lagCount {
            let denominator = (farEnergy[lag] * micEnergy).squareRoot()
            guard denominator > 1e-9 else { continue }
            let value = correlation[lag] / denominator
            if value > best { best = value; bestLag = lag }
        }
        confidence = best
        let needed = delaySamples == nil ? minimumConfidence : max(minimumConfidence, minimumConfidenceToMove)
        guard blocksSeen >= warmUpBlocks, bestLag >= 0, best >= needed else { agreements = 0; return false }
        if candidate >= 0, abs(bestLag - candidate) <= 1 { agreements += 1 } else { candidate = bestLag; agreements = 1 }
        guard agreements >= requiredAgreements else { return false }
        let samples = candidate * blockCount
        if let current = delaySamples, abs(current - samples) <= blockCount { return false }
        delaySamples = samples
        return true
    }
}
