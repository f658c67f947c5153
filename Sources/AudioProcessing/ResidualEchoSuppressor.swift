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
/// A frame may be analysed in several hops (`hopsPerFrame`; `EchoCanceller.Configuration.residualHopMs`
/// 5 makes two per 10 ms frame): each hop is framed with the one before it, so the transform
/// spans two hops and the overlap-add is one hop late. The echo's smoothing constants apply per
/// hop (per 10 ms instead, the listener lost the double-talk rows of `benchmarks processing`);
/// noise suppression's are per 10 ms (`SpectralNoiseGain`), and on hops shorter than 10 ms it
/// analyses 10 ms of them at once (`noiseAnalysisMs`).
///
/// By default the gained spectrum is synthesized by overlap-add, one hop (a frame: 10 ms) late;
/// with `crossfadeMs` shorter than a hop, on asymmetric windows that crossfade late
/// (`LowDelaySynthesis`; a call mixer makes it 5 ms at 10 ms call frames). Made with
/// `filterHalfLengthMs`, the suppressor applies its gains in the time domain instead, by a
/// short linear-phase filter made from them each hop (`GainFilter`), half that filter late (4 ms
/// instead of 10); only the comfort noise is then synthesized (its delay does not matter). Not
/// the default yet: see `defaultFilterHalfLengthMs`.
/// Everything is allocated in `init`; `process` allocates nothing.
public final class ResidualEchoSuppressor {
    /// Samples per frame: what each `process` takes.
    public let frameCount: Int
    /// Samples per hop of the analysis: `frameCount / hopsPerFrame`.
    public let hopCount: Int
    /// Sample rate in Hz.
    public let sampleRate: Int
    /// Delay the suppressor adds, in samples: a hop (overlap-add), the crossfade
    /// (`LowDelaySynthesis`) or half its gain filter.
    public var latencySamples: Int { outputFilter?.latencySamples ?? lowDelaySynthesis?.latencySamples ?? outputFraming.latencySamples }
    /// Half the length of the filter that applies the gains, in ms, as made (see `init`); nil
    /// when the gained spectrum is synthesized by overlap-add.
    public let filterHalfLengthMs: Double?
    /// A filter length for low-latency suppression (`init(frameCount:sampleRate:filterHalfLengthMs:)`),
    /// measured at 48 kHz against the overlap-add synthesis in one run (`benchmarks processing`,
    /// PESQ-WB): voiceChat with the demo's echo path in turns 3.72 → 3.82, a 120 ms room 3.72 →
    /// 3.81, a headset in turns 3.81 → 3.89, but a headset in double talk 3.86 → 3.78 (the
    /// applied gains are smoothed over about 1 / 4 ms = 250 Hz, so a spurious notch takes more
    /// of the near end), and a soft talker's double-talk correlation 0.88–0.90 → 0.87–0.89
    /// (`benchmarks aec`); 2 ms cost more there (0.86), 5.5 ms made one room's turns worse
    /// (3.39). Until the headset row holds, overlap-add stays the default.
    public static let lowLatencyFilterHalfLengthMs = 4.0
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
    /// Noise suppression in the same transform (`SpectralNoiseGain`): the largest attenuation
    /// of stationary noise in dB (negative), or nil for none (the default). Its gains multiply
    /// the echo gains, so it adds no delay of its own; comfort noise then fills at the
    /// suppressed noise's level, not the microphone's.
    public var noiseSuppressionDb: Float? {
        didSet {
            if let noiseSuppressionDb { noiseGain.floorDb = noiseSuppressionDb }
            if oldValue == nil, noiseSuppressionDb != nil {
                noiseGain.reset()
                noiseFraming?.reset()
            }
        }
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
    /// (`DelayEstimator.confidence`) once the far end has played, or, while no path is yet shown
    /// present or absent, a microphone under the far end's level; set it before each `process`. While false the echo model
    /// learns only downward, so a near-end talker who is not the far end's echo (a headset, a
    /// call without acoustic coupling) is not learnt as echo. True by default: a suppressor
    /// used on its own trusts every frame, as it always did.
    public var echoPathEvident = true
    /// Whether an echo path exists at all (in `EchoCanceller`, `EchoPathPresence`); set it
    /// before each `process`. While false every bin's gain is 1 — no echo, nothing to suppress —
    /// and the rest (noise floor, models, detector) keeps learning. True by default.
    public var echoPathPresent = true
    /// Whether the last frame was dominated by echo (far end active, most of the canceller's
    /// output judged echo) in any of its hops — a hint for stages after this one (an AGC
    /// should not adapt then).
    public private(set) var isEchoDominated = false
    /// Whether the last frame held the far end's echo and no near-end speech (the far end
    /// active, an echo path present, the near-end detector quiet) in any of its hops: an AGC
    /// should not adapt.
    private(set) var isFarEndOnly = false
    /// Whether the far end plays speech over a present echo path that is still being learnt
    /// (its first `EchoPowerModel.youngMs` of far-end speech) in any of the last frame's hops:
    /// the echo the canceller leaves then may pass for the near end's speech, and an AGC that
    /// adapted to it would lift the near end's next words (by 7 dB after the demo's first
    /// far-end turn).
    private(set) var isLearningEchoPath = false
    /// The current hop held echo and no near-end speech: noise suppression then takes every
    /// bin to its floor.
    private var isHopFarEndOnly = false
    /// The current frame's output power and its gained power, summed over its hops so far.
    private var frameOutputPower: Float = 0
    private var frameGainedPower: Float = 0
    /// Whether the far end plays speech, not only noise (`EchoPathPresence.isFarEndPlaying`,
    /// set by the canceller each frame; false when it does not estimate the delay). The far end
    /// counts as active for the rest of the suppressor at a far lower level: the comfort noise
    /// of the other side's uplink counted as "far end active" and held the AGC through the
    /// demo's first sentence.
    var isFarEndPlaying = false
    /// Hops with the far end playing over a present path since the path was last forgotten.
    private var echoPathHops = 0
    private let learningHops: Int
    /// Mean suppression of the last frame in dB (0: none), weighted by the output's power over
    /// its hops.
    public private(set) var lastSuppressionDb: Float = 0

    /// The least span noise suppression analyses at once, in ms: on shorter hops it analyses
    /// this many ms of them together (`init`).
    static let noiseAnalysisMs: Float = 10

    /// Smoothing per frame of the microphone's and the output's power spectra, and of the power
    /// of the echo the linear filter subtracted: enough to compare them with an echo estimate
    /// bin by bin, short enough to follow a syllable.
    static let powerSmoothing: Float = 0.6

    private let farFraming: STFTFraming
    private let microphoneFraming: STFTFraming
    private let outputFraming: STFTFraming
    /// The gains' synthesis when it crossfades over less than a hop (`crossfadeMs`); nil on
    /// the 50 % overlap of the analysis. The comfort noise is then synthesized alone by
    /// `outputFraming` (its delay does not matter).
    private let lowDelaySynthesis: LowDelaySynthesis?
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
    /// Bins where the linear filter adds rather than removes (1), whose gain applies to the
    /// microphone instead (see `SuppressionGainRule`); 0 elsewhere.
    private let divergedMask: UnsafeMutablePointer<Float>
    /// The gains split between the linear filter's output and the microphone.
    private let outputGains: UnsafeMutablePointer<Float>
    private let microphoneGains: UnsafeMutablePointer<Float>
    private let outputFilter: GainFilter?
    private let microphoneFilter: GainFilter?
    private let noiseSpectrum: Spectrum
    /// The frame being assembled, scaled to ±1.
    private let mix: UnsafeMutablePointer<Float>
    /// Noise suppression's gains (used while `noiseSuppressionDb` is set).
    private let noiseGain: SpectralNoiseGain
    /// Hops per noise-suppression analysis: 1 (it shares the hop's spectrum), or on hops
    /// shorter than `noiseAnalysisMs` as many as make that long (see `init`).
    private let noiseHops: Int
    /// Noise suppression's own framing when `noiseHops` > 1, and its spectrum.
    private let noiseFraming: STFTFraming?
    private let noiseAnalysis: Spectrum?
    /// Noise suppression's gains on the hops' bins (`SpectralNoiseGain.spread`): the last
    /// analysis's, the one before, the current hop's (between the two), and the floor.
    private let hopNoiseGain: UnsafeMutablePointer<Float>
    private let previousHopNoiseGain: UnsafeMutablePointer<Float>
    private let interpolatedNoiseGain: UnsafeMutablePointer<Float>
    private let hopNoiseFloor: UnsafeMutablePointer<Float>
    /// The gains applied: the echo gains times noise suppression's.
    private let appliedGains: UnsafeMutablePointer<Float>
    /// The level comfort noise fills at: the noise floor, times noise suppression's gain².
    private let comfortFloor: UnsafeMutablePointer<Float>

    /// Creates a suppressor for frames of `frameCount` samples at `sampleRate`, analysed in
    /// `hopsPerFrame` hops (`frameCount` must split into them evenly), applying its gains by
    /// overlap-add synthesis (nil) or with a filter of `filterHalfLengthMs` each side
    /// (`lowLatencyFilterHalfLengthMs`; at most a hop and what the transform holds; longer follows
    /// the gains more finely in frequency, at that much more delay). Synthesized by overlap-add,
    /// the hops crossfade over `crossfadeMs` (nil: a hop, on the analysis's own windows; shorter,
    /// by `LowDelaySynthesis`, that much late; clamped to 1 sample…a hop).
    public init(frameCount: Int, sampleRate: Int, filterHalfLengthMs: Double? = nil, hopsPerFrame: Int = 1,
                crossfadeMs: Double? = nil) {
        precondition(frameCount > 0, "ResidualEchoSuppressor: frameCount must be positive")
        precondition(hopsPerFrame > 0 && frameCount % hopsPerFrame == 0,
                     "ResidualEchoSuppressor: \(hopsPerFrame) hops do not split a frame of \(frameCount) samples")
        self.frameCount = frameCount
        let hopCount = frameCount / hopsPerFrame
        self.hopCount = hopCount
        self.sampleRate = sampleRate
        let hopMs = Float(hopCount) * 1_000 / Float(sampleRate)
        let halfLengthMs = filterHalfLengthMs.map {
            $0.isFinite ? min(max($0, 0), Double(hopMs)) : Self.lowLatencyFilterHalfLengthMs
        }
        self.filterHalfLengthMs = halfLengthMs
        farFraming = STFTFraming(frameCount: hopCount)
        microphoneFraming = STFTFraming(frameCount: hopCount)
        outputFraming = STFTFraming(frameCount: hopCount)
        let crossfadeCount = crossfadeMs.map { $0.isFinite ? min(max(Int(($0 * Double(sampleRate) / 1_000).rounded()), 1), hopCount) : hopCount }
        lowDelaySynthesis = halfLengthMs == nil ? crossfadeCount.flatMap {
            $0 < hopCount ? LowDelaySynthesis(hopCount: hopCount, crossfadeCount: $0) : nil
        } : nil
        binCount = outputFraming.binCount
        far = Spectrum(binCount: binCount)
        microphone = Spectrum(binCount: binCount)
        output = Spectrum(binCount: binCount)
        microphonePower = SmoothedPowerSpectrum(binCount: binCount, smoothing: Self.powerSmoothing)
        outputPower = SmoothedPowerSpectrum(binCount: binCount, smoothing: Self.powerSmoothing)
        linearFilterEcho = SmoothedPowerSpectrum(binCount: binCount, smoothing: Self.powerSmoothing)
        noiseFloor = NoiseFloorTracker(binCount: binCount, blockCount: outputFraming.blockCount,
                                       transformSize: outputFraming.transformSize, frameDurationMs: hopMs)
        echoModel = EchoPowerModel(binCount: binCount, frameDurationMs: hopMs)
        learningHops = Int(EchoPowerModel.youngMs / hopMs)
        nearEnd = NearEndDetector(binCount: binCount, frameDurationMs: hopMs)
        leak = EchoLeakEstimate(binCount: binCount)
        gains = SmoothedSuppressionGain(binCount: binCount)
        comfortNoiseGenerator = ComfortNoiseGenerator(binCount: binCount, blockCount: outputFraming.blockCount,
                                                      transformSize: outputFraming.transformSize)
        divergedMask = .allocate(capacity: binCount, filledWith: 0)
        outputGains = .allocate(capacity: binCount, filledWith: 1)
        microphoneGains = .allocate(capacity: binCount, filledWith: 0)
        if let halfLengthMs {
            // The filter's taps and a frame must fit the transform.
            let halfLength = min(Int((halfLengthMs * Double(sampleRate) / 1_000).rounded()),
                                 (outputFraming.transformSize - hopCount) / 2)
            outputFilter = GainFilter(transformSize: outputFraming.transformSize, frameCount: hopCount, halfLength: halfLength)
            microphoneFilter = GainFilter(transformSize: outputFraming.transformSize, frameCount: hopCount,
                                          halfLength: halfLength, initialGain: 0)
        } else {
            outputFilter = nil
            microphoneFilter = nil
        }
        noiseSpectrum = Spectrum(binCount: binCount)
        mix = .allocate(capacity: hopCount, filledWith: 0)
        // Noise suppression on 5 ms hops (94 Hz bins at 48 kHz, its gain changing every 5 ms
        // with a 5 ms crossfade) cost the demo's clean call 0.06 on one side against 10 ms hops,
        // where with it off the two hops scored alike. So on hops shorter than
        // `noiseAnalysisMs` it analyses that many ms of them at once, on a window twice as long
        // ending with the last of them (no delay added), spreads its gains onto the hops' bins,
        // and moves each hop's gain linearly from the last analysis's to the new one, as the
        // longer hop's overlap-add would (`voicecall demo --fast --network none` on 5 ms hops:
        // Bob → Alice 3.94 → 4.00, 10 ms hops 4.00; the new gains on both hops at once, 3.91).
        let perAnalysis = Int((Self.noiseAnalysisMs / hopMs).rounded())
        noiseHops = perAnalysis > 1 && hopsPerFrame % perAnalysis == 0 ? perAnalysis : 1
        if noiseHops > 1 {
            let framing = STFTFraming(frameCount: hopCount * noiseHops)
            noiseFraming = framing
            noiseAnalysis = Spectrum(binCount: framing.binCount)
            noiseGain = SpectralNoiseGain(binCount: framing.binCount, blockCount: framing.blockCount,
                                          transformSize: framing.transformSize, frameDurationMs: hopMs * Float(noiseHops),
                                          floorDb: -15)
        } else {
            noiseFraming = nil
            noiseAnalysis = nil
            noiseGain = SpectralNoiseGain(binCount: binCount, blockCount: outputFraming.blockCount,
                                          transformSize: outputFraming.transformSize, frameDurationMs: hopMs, floorDb: -15)
        }
        hopNoiseGain = .allocate(capacity: binCount, filledWith: 1)
        previousHopNoiseGain = .allocate(capacity: binCount, filledWith: 1)
        interpolatedNoiseGain = .allocate(capacity: binCount, filledWith: 1)
        hopNoiseFloor = .allocate(capacity: binCount, filledWith: 1)
        appliedGains = .allocate(capacity: binCount, filledWith: 1)
        comfortFloor = .allocate(capacity: binCount, filledWith: 0)
    }

    deinit {
        divergedMask.deallocate()
        outputGains.deallocate()
        microphoneGains.deallocate()
        mix.deallocate()
        appliedGains.deallocate()
        comfortFloor.deallocate()
        hopNoiseGain.deallocate()
        previousHopNoiseGain.deallocate()
        interpolatedNoiseGain.deallocate()
        hopNoiseFloor.deallocate()
    }

    /// Forgets everything learnt and the signal history.
    public func reset() {
        farFraming.reset()
        microphoneFraming.reset()
        outputFraming.reset()
        lowDelaySynthesis?.reset()
        microphonePower.reset()
        outputPower.reset()
        linearFilterEcho.reset()
        noiseFloor.reset()
        comfortNoiseGenerator.reset()
        echoModel.reset()
        gains.reset()
        nearEnd.reset()
        outputFilter?.reset()
        microphoneFilter?.reset()
        noiseGain.reset()
        noiseFraming?.reset()
        hopNoiseGain.update(repeating: 1, count: binCount)
        forgetEchoPath()
    }

    /// Forgets the learnt echo gains (not the signal history): call when the echo path or the
    /// linear filter before this stage changed abruptly (the filter was reset, the alignment moved).
    public func forgetEchoPath() {
        echoModel.forget()
        nearEnd.forgetEchoPath()
        leak.forget()
        echoPathHops = 0
    }

    /// Suppresses the residual echo in `linearOutput` (the linear canceller's output for
    /// `microphone`), given `farEnd` aligned to the echo as the canceller's reference was, into
    /// `output`, `latencySamples` late. All hold `frameCount` samples; `output` may alias
    /// `linearOutput` but not the others.
    public func process(microphone: UnsafePointer<Int16>, linearOutput: UnsafePointer<Int16>, farEnd: UnsafePointer<Int16>,
                        output: UnsafeMutablePointer<Int16>) {
        isFarEndOnly = false
        isLearningEchoPath = false
        frameOutputPower = 0
        frameGainedPower = 0
        var farEndTotal: Float = 0
        var start = 0
        while start < frameCount {
            farEndTotal += processHop(microphone: microphone + start, linearOutput: linearOutput + start,
                                      farEnd: farEnd + start, output: output + start, index: start / hopCount)
            start += hopCount
        }
        let suppression = frameOutputPower > 0 ? frameGainedPower / frameOutputPower : 1
        lastSuppressionDb = 10 * Float(log10(Double(max(suppression, 1e-6))))
        isEchoDominated = farEndTotal > 1e-6 && lastSuppressionDb < -6
    }

    /// One hop of `process` (`hopCount` samples each; the frame's `index`th); returns the far
    /// end's power in it.
    private func processHop(microphone: UnsafePointer<Int16>, linearOutput: UnsafePointer<Int16>, farEnd: UnsafePointer<Int16>,
                            output: UnsafeMutablePointer<Int16>, index: Int) -> Float {
        farFraming.analyze(farEnd, into: far)
        microphoneFraming.analyze(microphone, into: self.microphone)
        outputFraming.analyze(linearOutput, into: self.output)
        let farEndPower = computeGains()
        // With noise suppression its gains multiply the echo gains, and comfort noise fills
        // what the echo gains removed at the level noise suppression leaves.
        let applied: UnsafeMutablePointer<Float>, fillFloor: UnsafeMutablePointer<Float>
        if noiseSuppressionDb != nil {
            let noiseGains: UnsafeMutablePointer<Float>
            if noiseFraming != nil {
                noiseGains = hopNoiseGains(linearOutput: linearOutput, index: index)
            } else {
                // (computeGains put the microphone's bins where the linear filter diverged.)
                noiseGain.update(self.output, noiseOnly: isHopFarEndOnly)
                noiseGains = noiseGain.gain
            }
            for bin in 0..<binCount {
                let noiseBinGain = noiseGains[bin]
                appliedGains[bin] = gains.gain[bin] * noiseBinGain
                comfortFloor[bin] = noiseFloor.power[bin] * noiseBinGain * noiseBinGain
            }
            applied = appliedGains
            fillFloor = comfortFloor
        } else {
            applied = gains.gain
            fillFloor = noiseFloor.power
        }
        if let lowDelaySynthesis {
            mix.update(repeating: 0, count: hopCount)
            lowDelaySynthesis.synthesize(linearOutput: linearOutput, microphone: microphone, fromMicrophone: divergedMask,
                                         gains: applied, adding: mix)
            if comfortNoise { addComfortNoise(floor: fillFloor) }
            writeMix(to: output)
            return farEndPower
        }
        guard let outputFilter, let microphoneFilter else {
            // Overlap-add: the gains on the spectrum.
            let spectrum = self.output
            for bin in 0..<binCount {
                spectrum.real[bin] *= applied[bin]
                spectrum.imaginary[bin] *= applied[bin]
            }
            if comfortNoise { comfortNoiseGenerator.add(to: spectrum, gain: gains.gain, noiseFloor: fillFloor) }
            outputFraming.synthesize(spectrum, into: output)
            return farEndPower
        }
        for bin in 0..<binCount {
            microphoneGains[bin] = applied[bin] * divergedMask[bin]
            outputGains[bin] = applied[bin] - microphoneGains[bin]
        }
        outputFilter.setGains(outputGains)
        microphoneFilter.setGains(microphoneGains)
        mix.update(repeating: 0, count: hopCount)
        outputFilter.apply(linearOutput, adding: mix)
        microphoneFilter.apply(microphone, adding: mix)
        if comfortNoise { addComfortNoise(floor: fillFloor) }
        writeMix(to: output)
        return farEndPower
    }

    /// Synthesizes the hop's comfort noise alone (filling what the gains removed, at `floor`)
    /// through `outputFraming` onto `mix`.
    private func addComfortNoise(floor: UnsafeMutablePointer<Float>) {
        noiseSpectrum.real.update(repeating: 0, count: binCount)
        noiseSpectrum.imaginary.update(repeating: 0, count: binCount)
        comfortNoiseGenerator.add(to: noiseSpectrum, gain: gains.gain, noiseFloor: floor)
        outputFraming.synthesize(noiseSpectrum, adding: mix)
    }

    /// `mix` (scaled to ±1) rounded and clipped into `output`.
    private func writeMix(to output: UnsafeMutablePointer<Int16>) {
        for index in 0..<hopCount {
            output[index] = Int16(max(-32_768, min(32_767, (mix[index] * 32_768).rounded())))
        }
    }

    /// Noise suppression's gains for the frame's `index`th hop when it analyses `noiseHops` hops
    /// at once: at the first of them it analyses them all (`linearOutput` holds them), and each
    /// hop's gain lies between the last analysis's and the new one's, the last hop's the new
    /// one's. A hop with echo and no near-end speech gets the floor.
    private func hopNoiseGains(linearOutput: UnsafePointer<Int16>, index: Int) -> UnsafeMutablePointer<Float> {
        guard let noiseFraming, let noiseAnalysis else { return noiseGain.gain }
        let position = index % noiseHops
        if position == 0 {
            noiseFraming.analyze(linearOutput, into: noiseAnalysis)
            noiseGain.update(noiseAnalysis)
            let ratio = noiseFraming.transformSize / outputFraming.transformSize
            previousHopNoiseGain.update(from: hopNoiseGain, count: binCount)
            noiseGain.spread(noiseGain.gain, ratio: ratio, into: hopNoiseGain)
            noiseGain.spread(noiseGain.floorGain, ratio: ratio, into: hopNoiseFloor)
        }
        if isHopFarEndOnly { return hopNoiseFloor }
        let weight = Float(position + 1) / Float(noiseHops)
        for bin in 0..<binCount {
            interpolatedNoiseGain[bin] = previousHopNoiseGain[bin] + weight * (hopNoiseGain[bin] - previousHopNoiseGain[bin])
        }
        return interpolatedNoiseGain
    }

    /// The hop's gains (and the frame's flags and suppression so far); returns the far end's
    /// power in the hop.
    private func computeGains() -> Float {
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
        isHopFarEndOnly = echoOnlyFrame && farTotal > 1e-6 && echoPathPresent
        if isHopFarEndOnly { isFarEndOnly = true }
        let overPath = isFarEndPlaying && echoPathPresent
        if overPath, echoPathHops < learningHops { echoPathHops += 1 }
        if overPath && echoPathHops < learningHops { isLearningEchoPath = true }
        leak.update(microphonePower: microphonePower.power, outputPower: outputPower.power,
                    predictedEcho: echoModel.predictedPower, echoOnlyFrame: echoOnlyFrame)
        let rule = gainRule
        for bin in 0..<binCount {
            let micPower = microphonePower.power[bin], linearPower = outputPower.power[bin]
            // Where the linear filter adds rather than removes, the gain applies to the
            // microphone instead (see `SuppressionGainRule`).
            let diverged = SuppressionGainRule.isDiverged(microphonePower: micPower, outputPower: linearPower)
            divergedMask[bin] = diverged ? 1 : 0
            if diverged && outputFilter == nil {
                output.real[bin] = microphone.real[bin]
                output.imaginary[bin] = microphone.imaginary[bin]
            }
            gains.raw[bin] = !echoPathPresent ? 1 : rule.gain(
                microphonePower: micPower, outputPower: linearPower, predictedEcho: echoModel.predictedPower[bin],
                linearFilterEcho: linearFilterEcho.power[bin], leak: leak.leak[bin], young: echoModel.isYoung(bin),
                echoOnlyFrame: echoOnlyFrame)
        }
        var weightedGain: Float = 0
        for bin in 0..<binCount {
            let power = divergedMask[bin] != 0 ? microphone.power(bin) : output.power(bin)
            weightedGain += gains.raw[bin] * gains.raw[bin] * power
        }
        gains.smooth(nearEndActive: nearEnd.isActive)
        frameOutputPower += outputTotal
        frameGainedPower += weightedGain
        return farTotal
    }
}
