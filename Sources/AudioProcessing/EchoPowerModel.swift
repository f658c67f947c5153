// SPDX-License-Identifier: Apache-2.0
/// Predicts the echo power at the microphone per bin from the far end's recent power: a
/// power-domain model of the loudspeaker–room–microphone path, learnt by NLMS on powers.
///
/// Per bin, one gain per frame of lag over the last 300 ms (`historyMs`: the room's
/// reverberant tail after the linear filter's alignment) applies to the far end's power in
/// that bin, plus one gain on the far end's broadband power — its largest mean bin power over
/// the last 60 ms (`broadbandMs`) — because a distorting loudspeaker puts echo into bins where
/// the far end had little.
///
/// Why learnt against the microphone and not against the linear filter's output: the model then
/// holds from the first second, whether the linear filter has converged, diverged or was just
/// reset; it is what lets the suppressor remove echo while the filter converges.
///
/// How it learns: downward at full speed (the echo is smaller than modelled); upward at full
/// speed only while a bin is young (its first 2.5 s of far-end excitation, `youngMs`, counted
/// per bin so new spectral content learns fast however long the call has run), later at a
/// tenth of the speed where echo is alone and at a fiftieth elsewhere, so near-end speech in
/// double talk cannot ratchet the model up into the near end. Over the near end's speech a
/// step up also takes no more error than an echo alone could leave (the prediction itself,
/// `echoAloneMargin`): NLMS divides by the far end's power, so a far end that is just starting
/// under a talking near end — above all the near end's own voice coming back from a far end
/// whose canceller has not yet decided on its path, a round trip late — otherwise multiplied
/// the path by the ratio of the two in one frame (+30 dB, and the near end's next words were
/// suppressed as their own echo: `voicecall demo --fast --network none --ptime 10`, Bob's
/// first words 3–5 dB down). In `benchmarks processing` a near end talking over a 120 ms
/// room's echo went from 1.80 to 2.18 PESQ-WB; `benchmarks aec` did not move.
final class EchoPowerModel {
    /// Span of far-end history the model covers, in ms.
    static let historyMs: Float = 300
    /// Span over which the broadband far power is held, in ms.
    static let broadbandMs: Float = 60
    /// Far-end excitation a bin needs before it counts as established, in ms.
    static let youngMs: Float = 2_500
    /// NLMS step on powers.
    static let learningStep: Float = 0.3
    /// A bin holds echo alone while the microphone's power is below this × the predicted
    /// echo: anything louder may be near-end speech, which must not be learnt as echo.
    static let echoAloneMargin: Float = 2

    /// Number of bins.
    let binCount: Int
    /// Frames of far-end history per bin.
    let historyLength: Int
    /// The predicted echo power per bin for the current frame.
    let predictedPower: UnsafeMutablePointer<Float>
    /// The far end's power spectrum of the current frame.
    let farPower: UnsafeMutablePointer<Float>
    /// The far end's total power (summed over bins) in the current frame.
    private(set) var farTotal: Float = 0

    /// Far powers per bin, newest first: bin b's last `historyLength` powers are
    /// farHistory[b × 2L + historyPosition ..< + L] (each written twice, so always contiguous).
    private let farHistory: UnsafeMutablePointer<Float>
    private var historyPosition = 0
    /// The learnt gains: `historyLength` per bin.
    private let taps: UnsafeMutablePointer<Float>
    /// The far end's mean bin power per frame, same ring positions as `farHistory`.
    private let broadbandHistory: UnsafeMutablePointer<Float>
    /// Per-bin gain on the broadband far power.
    private let broadbandGain: UnsafeMutablePointer<Float>
    private let broadbandLags: Int
    /// The broadband far power of the current frame.
    private var broadband: Float = 0
    /// Energy of each bin's regressor (its history and the broadband power), for NLMS.
    private let regressorPower: UnsafeMutablePointer<Float>
    /// Frames each bin was excited by the far end since the model was last forgotten.
    private let excitation: UnsafeMutablePointer<Int>
    /// Far power a bin needs in a frame to count as excited (this frame's).
    private var excitationFloor: Float = 0
    private let youngFrames: Int

    /// A model for spectra of `binCount` bins, one every `frameDurationMs`.
    init(binCount: Int, frameDurationMs: Float) {
        self.binCount = binCount
        youngFrames = Int(Self.youngMs / frameDurationMs)
        historyLength = max(1, Int((Self.historyMs / frameDurationMs).rounded()))
        broadbandLags = max(1, Int((Self.broadbandMs / frameDurationMs).rounded()))
        predictedPower = .allocate(capacity: binCount, filledWith: 0)
        farPower = .allocate(capacity: binCount, filledWith: 0)
        farHistory = .allocate(capacity: 2 * historyLength * binCount, filledWith: 0)
        taps = .allocate(capacity: historyLength * binCount, filledWith: 0)
        broadbandHistory = .allocate(capacity: historyLength, filledWith: 0)
        broadbandGain = .allocate(capacity: binCount, filledWith: 0)
        regressorPower = .allocate(capacity: binCount, filledWith: 0)
        excitation = .allocate(capacity: binCount, filledWith: 0)
    }

    deinit {
        for pointer in [predictedPower, farPower, farHistory, taps, broadbandHistory, broadbandGain, regressorPower] {
            pointer.deallocate()
        }
        excitation.deallocate()
    }

    /// Forgets the far-end history and the learnt path.
    func reset() {
        farPower.update(repeating: 0, count: binCount)
        farHistory.update(repeating: 0, count: 2 * historyLength * binCount)
        broadbandHistory.update(repeating: 0, count: historyLength)
        forget()
    }

    /// Forgets the learnt path (not the far-end history): the echo path changed.
    func forget() {
        taps.update(repeating: 0, count: historyLength * binCount)
        broadbandGain.update(repeating: 0, count: binCount)
        excitation.update(repeating: 0, count: binCount)
    }

    /// Whether `bin`'s path is still young (less than `youngMs` of far-end excitation since it
    /// was forgotten); counts the current frame once `learn` has run.
    @inline(__always)
    func isYoung(_ bin: Int) -> Bool { excitation[bin] < youngFrames }

    /// Whether a bin with `microphonePower` holds echo alone given `predictedEcho`.
    @inline(__always)
    static func isEchoAlone(microphonePower: Float, predictedEcho: Float) -> Bool {
        microphonePower < echoAloneMargin * predictedEcho
    }

    /// Takes the far end's spectrum of this frame into the history and predicts this frame's
    /// echo power per bin (`predictedPower`).
    func predict(from far: Spectrum) {
        historyPosition = historyPosition == 0 ? historyLength - 1 : historyPosition - 1
        var total: Float = 0
        for bin in 0..<binCount {
            farPower[bin] = far.power(bin)
            total += farPower[bin]
        }
        farTotal = total
        let stride = 2 * historyLength
        for bin in 0..<binCount {
            farHistory[bin * stride + historyPosition] = farPower[bin]
            farHistory[bin * stride + historyPosition + historyLength] = farPower[bin]
        }
        broadbandHistory[historyPosition] = total / Float(binCount)
        broadband = 0
        for lag in 0..<min(broadbandLags, historyLength) {
            var row = historyPosition + lag
            if row >= historyLength { row -= historyLength }
            broadband = max(broadband, broadbandHistory[row])
        }
        // A bin is excited when its far power is within 30 dB of the mean bin power.
        excitationFloor = max(1e-9, 1e-3 * total / Float(binCount))
        for bin in 0..<binCount {
            var predicted: Float = broadbandGain[bin] * broadband
            var regressorEnergy: Float = broadband * broadband
            let binTaps = taps + bin * historyLength
            let history = farHistory + bin * stride + historyPosition  // history[lag], newest first
            for lag in 0..<historyLength {
                let value = history[lag]
                predicted += binTaps[lag] * value
                regressorEnergy += value * value
            }
            predictedPower[bin] = predicted
            regressorPower[bin] = regressorEnergy
        }
    }

    /// One NLMS step per bin toward `microphonePower` (the smoothed microphone power of this
    /// frame, after `predict`). In an echo-only frame (no near-end talker, `echoOnlyFrame`)
    /// every bin's excess over the prediction is echo the model misses and is learnt at the
    /// echo-alone rate. Without evidence that an echo path exists (`echoPathEvident` false)
    /// the model only learns downward: a talker at the near end whose speech is independent
    /// of the far end's would otherwise be learnt as its echo (a power model fits any signal
    /// that is loud while the far end is), above all while a bin is young.
    func learn(microphonePower: UnsafePointer<Float>, echoOnlyFrame: Bool, echoPathEvident: Bool = true) {
        let step = Self.learningStep
        let stride = 2 * historyLength
        for bin in 0..<binCount {
            let predicted = predictedPower[bin]
            let error = microphonePower[bin] - predicted
            if farPower[bin] > excitationFloor { excitation[bin] += 1 }
            let young = isYoung(bin)
            let echoAlone = Self.isEchoAlone(microphonePower: microphonePower[bin], predictedEcho: predicted)
            let fast = error < 0 || (young && echoPathEvident)
            let mu = fast ? step : (!echoPathEvident ? 0 : (echoAlone || echoOnlyFrame ? step * 0.1 : step * 0.02))
            let regressorEnergy = regressorPower[bin]
            guard regressorEnergy > 1e-12 else { continue }
            // Over the near end's speech, a step up asks no more than an echo alone could.
            let learnt = fast || echoAlone || echoOnlyFrame ? error : min(error, (Self.echoAloneMargin - 1) * predicted)
            let factor = mu * learnt / (regressorEnergy + 1e-9)
            broadbandGain[bin] = max(0, broadbandGain[bin] + factor * broadband)
            let binTaps = taps + bin * historyLength
            let history = farHistory + bin * stride + historyPosition
            for lag in 0..<historyLength { binTaps[lag] = max(0, binTaps[lag] + factor * history[lag]) }
        }
    }
}
