// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the echo a linear echo canceller leaves behind — the misadjustment of a filter that
/// is still converging (or was just reset), and the echo of a loudspeaker that distorts, which
/// no linear filter models — with a per-bin gain in the frequency domain (the place of the
/// "nonlinear processor" of WebRTC's AEC1, but driven by an echo-power estimate, as in AEC3,
/// rather than by coherence: a learnt power-domain echo path stays valid while the linear
/// filter converges or after it is reset, where the microphone–output coherence says nothing).
///
/// Each frame, three signals are framed (`STFTFraming`: 50 % overlap, square-root Hann): the
/// far end aligned as the linear filter's reference, the microphone, and the linear filter's
/// output. Then, per bin:
///
/// 1. the output's stationary noise floor is tracked (`NoiseFloorTracker`);
/// 2. the echo at the microphone is predicted from the far end's recent power
///    (`EchoPowerModel`, learnt on the microphone, so valid from the first second);
/// 3. the frame is classified as near-end speech or echo only (`NearEndDetector`), and the
///    model learns accordingly;
/// 4. the share of echo the linear filter leaves is learnt where echo is alone
///    (`EchoLeakEstimate`);
/// 5. the gain follows (`SuppressionGainRule`: hard in echo-only frames and where echo
///    dominates, gentle where the near end's speech is), smoothed over frequency and time
///    (`SmoothedSuppressionGain`);
/// 6. what the gain removed is filled with noise at the floor (`ComfortNoiseGenerator`,
///    `comfortNoise`), so the near end's background does not pump with the far end's speech.
///
/// The output lags the input by one frame (`latencySamples`), the price of overlapping frames.
/// Everything is allocated in `init`; `process` allocates nothing.
public final class ResidualEchoSuppressor {
    /// Samples per frame (the hop).
    public let frameCount: Int
    /// Sample rate in Hz.
    public let sampleRate: Int
    /// Delay the suppressor adds, in samples: one frame.
    public var latencySamples: Int { outputFraming.latencySamples }
    /// Smallest gain applied to a bin, in dB (negative): how far echo is pushed down at most.
    public var floorDb: Float {
        get { gainRule.floorDb }
        set { gainRule.floorDb = newValue }
    }
    /// Factor on the estimated residual echo before the gain is computed (> 1 suppresses
    /// harder than the estimate says, for the estimate's own error) where the microphone is
    /// clearly louder than the echo while the near end talks, while the bin's echo model is
    /// young (`settledOverdrive` after): a young model under-predicts the echo.
    public var overdrive: Float {
        get { gainRule.overdrive }
        set { gainRule.overdrive = newValue }
    }
    /// Overdrive where the microphone is clearly louder than the predicted echo while the near
    /// end talks, once the bin's echo model is established (its first 2.5 s of far-end
    /// excitation are over): a softer talker's speech sits close to the residual echo in its
    /// bins, and every unit of overdrive takes some of it.
    public var settledOverdrive: Float {
        get { gainRule.settledOverdrive }
        set { gainRule.settledOverdrive = newValue }
    }
    /// Overdrive where the microphone holds little more than the predicted echo (echo
    /// dominates) and in echo-only frames: there a generous estimate costs no near-end speech.
    public var echoDominantOverdrive: Float {
        get { gainRule.echoDominantOverdrive }
        set { gainRule.echoDominantOverdrive = newValue }
    }
    /// How slowly a bin's gain rises back per frame (0: at once … toward 1: slowly) while
    /// near-end speech is detected (`isNearEndActive`); falling gains act at once. Quick,
    /// because a slow release costs near-end speech onsets.
    public var releaseSmoothing: Float {
        get { gains.releaseSmoothing }
        set { gains.releaseSmoothing = newValue }
    }
    /// How slowly a bin's gain rises back per frame while no near-end speech is detected (the
    /// frame is echo only): nothing there is worth keeping, and a slow release holds the gain
    /// down through the gaps in a distorting loudspeaker's echo.
    public var echoOnlyReleaseSmoothing: Float {
        get { gains.echoOnlyReleaseSmoothing }
        set { gains.echoOnlyReleaseSmoothing = newValue }
    }
    /// Whether bins the gain pushes below the microphone's stationary noise floor are filled
    /// with noise of that floor's power (comfort noise), so the near end's background noise does
    /// not switch off whenever the far end talks. Off: the gain alone (the near end's noise is
    /// gated with the echo).
    public var comfortNoise = true
    /// The microphone's stationary noise floor as tracked for comfort noise, as an RMS level in
    /// dBFS (0 dB: a full-scale square wave) — computed when read, from the per-bin estimate.
    public var noiseFloorDbFS: Float { noiseFloor.levelDbFS }
    /// Whether near-end speech was detected in the last frame or the 150 ms before it: more
    /// than 10 % (5 % once the linear filter has settled) of the microphone's power lies above
    /// twice the echo expected in its bin (plus twice its stationary noise floor).
    public var isNearEndActive: Bool { nearEnd.isActive }
    /// Whether the stage before this one has evidence that an echo path exists — in
    /// `EchoCanceller`, the bulk-delay estimator's correlation between far end and microphone
    /// (`DelayEstimator.confidence`); set it before each `process`. While false the echo model
    /// learns only downward, so a near-end talker who is not the far end's echo (a headset, a
    /// call without acoustic coupling) is not learnt as echo. True by default: a suppressor
    /// used on its own trusts every frame, as it always did.
    public var echoPathEvident = true
    /// Whether an echo path exists at all (in `EchoCanceller`, `EchoPathPresence`); set it
    /// before each `process`. While false every bin's gain is 1 — no echo, nothing to suppress —
    /// and the rest (noise floor, models, detector) keeps learning. True by default.
    public var echoPathPresent = true
    /// Whether the last frame was dominated by echo (far end active, most of the canceller's
    /// output judged echo) — a hint for stages after this one (an AGC should not adapt then).
    public private(set) var isEchoDominated = false
    /// Mean suppression of the last frame in dB (0: none), weighted by the output's power.
    public private(set) var lastSuppressionDb: Float = 0

    /// Smoothing per frame of the microphone's and the output's power spectra, and of the power
    /// of the echo the linear filter subtracted: enough to compare them with an echo estimate
    /// bin by bin, short enough to follow a syllable.
    static let powerSmoothing: Float = 0.6

    private let farFraming: STFTFraming
    private let microphoneFraming: STFTFraming
    private let outputFraming: STFTFraming
    private let far: Spectrum
    private let microphone: Spectrum
    /// The linear filter's output; gained and synthesized into the output.
    private let output: Spectrum
    private let binCount: Int
    private let microphonePower: SmoothedPowerSpectrum
    private let outputPower: SmoothedPowerSpectrum
    /// Smoothed |microphone − linear output|²: the echo the linear filter found and subtracted.
    private let linearFilterEcho: SmoothedPowerSpectrum
    private let noiseFloor: NoiseFloorTracker
    private let echoModel: EchoPowerModel
    private let nearEnd: NearEndDetector
    private let leak: EchoLeakEstimate
    private var gainRule = SuppressionGainRule()
    private let gains: SmoothedSuppressionGain
    private let comfortNoiseGenerator: ComfortNoiseGenerator

    /// Creates a suppressor for frames of `frameCount` samples at `sampleRate`.
    public init(frameCount: Int, sampleRate: Int) {
        precondition(frameCount > 0, "ResidualEchoSuppressor: frameCount must be positive")
        self.frameCount = frameCount
        self.sampleRate = sampleRate
        let frameMs = Float(frameCount) * 1_000 / Float(sampleRate)
        farFraming = STFTFraming(frameCount: frameCount)
        microphoneFraming = STFTFraming(frameCount: frameCount)
        outputFraming = STFTFraming(frameCount: frameCount)
        binCount = outputFraming.binCount
        far = Spectrum(binCount: binCount)
        microphone = Spectrum(binCount: binCount)
        output = Spectrum(binCount: binCount)
        microphonePower = SmoothedPowerSpectrum(binCount: binCount, smoothing: Self.powerSmoothing)
        outputPower = SmoothedPowerSpectrum(binCount: binCount, smoothing: Self.powerSmoothing)
        linearFilterEcho = SmoothedPowerSpectrum(binCount: binCount, smoothing: Self.powerSmoothing)
        noiseFloor = NoiseFloorTracker(binCount: binCount, blockCount: outputFraming.blockCount,
                                       transformSize: outputFraming.transformSize, frameDurationMs: frameMs)
        echoModel = EchoPowerModel(binCount: binCount, frameDurationMs: frameMs)
        nearEnd = NearEndDetector(binCount: binCount, frameDurationMs: frameMs)
        leak = EchoLeakEstimate(binCount: binCount)
        gains = SmoothedSuppressionGain(binCount: binCount)
        comfortNoiseGenerator = ComfortNoiseGenerator(binCount: binCount, blockCount: outputFraming.blockCount,
                                                      transformSize: outputFraming.transformSize)
    }

    /// Forgets everything learnt and the signal history.
    public func reset() {
        farFraming.reset()
        microphoneFraming.reset()
        outputFraming.reset()
        microphonePower.reset()
        outputPower.reset()
        linearFilterEcho.reset()
        noiseFloor.reset()
        comfortNoiseGenerator.reset()
        echoModel.reset()
        gains.reset()
        nearEnd.reset()
        forgetEchoPath()
    }

    /// Forgets the learnt echo gains (not the signal history): call when the echo path or the
    /// linear filter before this stage changed abruptly (the filter was reset, the alignment moved).
    public func forgetEchoPath() {
        echoModel.forget()
        nearEnd.forgetEchoPath()
        leak.forget()
    }

    /// Suppresses the residual echo in `linearOutput` (the linear canceller's output for
    /// `microphone`), given `farEnd` aligned to the echo as the canceller's reference was, into
    /// `output`, one frame late. All hold `frameCount` samples; `output` may alias
    /// `linearOutput` but not the others.
    public func process(microphone: UnsafePointer<Int16>, linearOutput: UnsafePointer<Int16>, farEnd: UnsafePointer<Int16>,
                        output: UnsafeMutablePointer<Int16>) {
        farFraming.analyze(farEnd, into: far)
        microphoneFraming.analyze(microphone, into: self.microphone)
        outputFraming.analyze(linearOutput, into: self.output)
        computeGains()
        let spectrum = self.output
        for bin in 0..<binCount {
            spectrum.real[bin] *= gains.gain[bin]
            spectrum.imaginary[bin] *= gains.gain[bin]
        }
        if comfortNoise { comfortNoiseGenerator.add(to: spectrum, gain: gains.gain, noiseFloor: noiseFloor.power) }
        outputFraming.synthesize(spectrum, into: output)
    }

    private func computeGains() {
        // The linear filter's output, not the microphone: it holds the same near-end noise (a
        // linear filter cannot cancel what the far end did not cause) with far less echo once
        // converged, so the tracked minimum is far less often the echo's own.
        noiseFloor.update(output)
        echoModel.predict(from: far)
        microphonePower.update(microphone)
        outputPower.update(output)
        linearFilterEcho.update(difference: microphone, output)
        var outputTotal: Float = 0
        for bin in 0..<binCount { outputTotal += output.power(bin) }
        let farTotal = echoModel.farTotal
        let echoOnlyFrame = !nearEnd.update(microphonePower: microphonePower.power, predictedEcho: echoModel.predictedPower,
                                            linearFilterEcho: linearFilterEcho.power, noiseFloor: noiseFloor.power,
                                            farEndActive: farTotal > 1e-6)
        echoModel.learn(microphonePower: microphonePower.power, echoOnlyFrame: echoOnlyFrame, echoPathEvident: echoPathEvident)
        leak.update(microphonePower: microphonePower.power, outputPower: outputPower.power,
                    predictedEcho: echoModel.predictedPower, echoOnlyFrame: echoOnlyFrame)
        let rule = gainRule
        for bin in 0..<binCount {
            let micPower = microphonePower.power[bin], linearPower = outputPower.power[bin]
            // Where the linear filter adds rather than removes, the gain applies to the
            // microphone instead (see `SuppressionGainRule`).
            if SuppressionGainRule.isDiverged(microphonePower: micPower, outputPower: linearPower) {
                output.real[bin] = microphone.real[bin]
                output.imaginary[bin] = microphone.imaginary[bin]
            }
            gains.raw[bin] = !echoPathPresent ? 1 : rule.gain(
                microphonePower: micPower, outputPower: linearPower, predictedEcho: echoModel.predictedPower[bin],
                linearFilterEcho: linearFilterEcho.power[bin], leak: leak.leak[bin], young: echoModel.isYoung(bin),
                echoOnlyFrame: echoOnlyFrame)
        }
        var weightedGain: Float = 0
        for bin in 0..<binCount { weightedGain += gains.raw[bin] * gains.raw[bin] * output.power(bin) }
        gains.smooth(nearEndActive: nearEnd.isActive)
        let suppression = outputTotal > 0 ? weightedGain / outputTotal : 1
        lastSuppressionDb = 10 * Float(log10(Double(max(suppression, 1e-6))))
        isEchoDominated = farTotal > 1e-6 && lastSuppressionDb < -6
    }
}
