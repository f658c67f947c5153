import DSP

/// Removes the echo a linear echo canceller leaves behind — the misadjustment of a filter that
/// is still converging (or was just reset), and the echo of a loudspeaker that distorts, which
/// no linear filter models — with a per-bin gain in the frequency domain (the place of the
/// "nonlinear processor" of WebRTC's AEC1, but driven by an echo-power estimate, as in AEC3,
/// rather than by coherence: a learnt power-domain echo path stays valid while the linear
/// filter converges or after it is reset, where the microphone–output coherence says nothing).
///
/// Each frame, the last two frames (50 % overlap, square-root Hann window, zero-padded to a
/// power of two) of three signals are transformed: the far end aligned as the linear filter's
/// reference, the microphone, and the linear canceller's output. Per bin:
///
/// * **Echo at the microphone**, predicted from the far end's power over the last 300 ms
///   (one learnt gain per bin and 10 ms lag: a power-domain model of the room, reverberant
///   tail included). It is learnt by NLMS on powers against the microphone — not against the
///   linear filter's output — so it is valid from the first second and does not care whether
///   speexdsp has converged or was just reset. One more gain per bin applies to the far end's
///   broadband power (the last 60 ms): a distorting loudspeaker puts echo into bins where the
///   far end had little. It learns downward at full speed and upward fast only while young
///   (a bin's first 2.5 s of far-end excitation); later slowly, so double talk cannot ratchet
///   it up into the near-end speech.
/// * **Near-end activity**, per frame: near-end speech is declared (and held for 150 ms) when
///   more than 10 % (5 % after the first 3.5 s of far end, once the linear filter has
///   settled) of the microphone's power lies above twice the echo expected in its bin —
///   the larger of that prediction and the echo the linear filter subtracted — plus twice the
///   bin's stationary noise floor (background noise is not a talker). A frame without
///   it is echo only and is treated aggressively (below): nothing in it is worth keeping.
/// * **Leak**: the share of that echo the linear filter leaves, learnt (smoothed ratio of
///   output to microphone power; rises followed at once) only where the microphone is not
///   much louder than the predicted echo, or in echo-only frames. 1 until the filter works.
/// * **Gain** = 1 − overdrive × leak × predicted echo / output power, floored at `floorDb`.
///   Where the linear filter's output is louder than the microphone (diverging, or just
///   reset), the microphone's spectrum is used instead, with a leak of 1 (as AEC1 does).
///   The overdrive is large (`echoDominantOverdrive`) where the microphone holds little more
///   than the predicted echo and in every bin of an echo-only frame (where the linear
///   filter's echo estimate counts as predicted echo too), small (`overdrive`) where the
///   microphone is clearly louder while the near end talks — its speech is there, and keeps
///   its bins — and smaller still (`settledOverdrive`) once the bin's echo model is established.
/// * The gain is smoothed over frequency (3 taps) and, when it rises, over time (against
///   musical noise; falling gains act at once so echo onsets do not leak): slowly in
///   echo-only frames (`echoOnlyReleaseSmoothing`), quickly while the near end talks
///   (`releaseSmoothing`).
///
/// * **Comfort noise** (`comfortNoise`): pushing echo-only frames to the floor also removes
///   the near end's background noise while the far end talks, so the listener hears that noise
///   pump on and off with the far end's speech. The microphone's stationary noise floor is
///   tracked per bin (minimum statistics: the minimum of the smoothed microphone power over the
///   last ~1.6 s, corrected for the minimum's bias, updated in every frame), and each bin's
///   output gets noise of that power with random phase scaled by √(1 − gain²) (as WebRTC's
///   AEC3 does): where the gain is 1 nothing is added, where the gain removes everything the
///   output keeps the near end's noise level. A noise-free microphone has a floor near zero,
///   and so adds none.
///
/// The output lags the input by one frame (`latencySamples`), the price of overlapping frames.
/// Everything is allocated in `init`; `process` allocates nothing.
public final class ResidualEchoSuppressor {
    /// Samples per frame (the hop).
    public let frameCount: Int
    /// Sample rate in Hz.
    public let sampleRate: Int
    /// Delay the suppressor adds, in samples: one frame.
    public var latencySamples: Int { frameCount }
    /// Smallest gain applied to a bin, in dB (negative): how far echo is pushed down at most.
    public var floorDb: Float = -40 { didSet { floorGain = Self.amplitude(floorDb) } }
    /// Factor on the estimated residual echo before the gain is computed (> 1 suppresses
    /// harder than the estimate says, for the estimate's own error) where the microphone is
    /// clearly louder than the echo while the near end talks, while the bin's echo model is
    /// young (`settledOverdrive` after).
    public var overdrive: Float = 2
    /// Overdrive where the microphone is clearly louder than the predicted echo while the near
    /// end talks, once the bin's echo model is established (its first 2.5 s of far-end
    /// excitation are over): a softer talker's speech sits close to the residual echo in its
    /// bins, and every unit of overdrive takes some of it. While the model is young its
    /// prediction is too low and `overdrive` covers the gap. Measured on seeds 0/101/202/303:
    /// double talk 0.921–0.932 at 2 (as `overdrive`), 0.934–0.943 at 1, 0.939–0.947 at 0.5
    /// (near end 10 dB quieter: 0.778–0.838, 0.805–0.860, 0.816–0.868); at 0.25 the 250 ms
    /// soft-clipping room's convergence went from 1.0 to 4.0 s on seed 202.
    public var settledOverdrive: Float = 0.5
    /// Overdrive where the microphone holds little more than the predicted echo (echo
    /// dominates): there a generous estimate costs no near-end speech.
    public var echoDominantOverdrive: Float = 20
    /// How slowly a bin's gain rises back per frame (0: at once … toward 1: slowly) while
    /// near-end speech is detected (`isNearEndActive`); falling gains act at once. A slow
    /// release costs near-end speech onsets, so it is quick while the near end talks. (With one
    /// release for all frames the trade against a distorting loudspeaker was direct: 0.5 gave
    /// 23.7 / 25.6 dB on the benchmark's soft-clipping rooms at 0.93 double-talk correlation,
    /// 0.7 gave 25.0 / 26.6 dB at 0.91.)
    public var releaseSmoothing: Float = 0.2
    /// How slowly a bin's gain rises back per frame while no near-end speech is detected (the
    /// frame is echo only): nothing there is worth keeping, and a slow release holds the gain
    /// down through the gaps in a distorting loudspeaker's echo.
    public var echoOnlyReleaseSmoothing: Float = 0.8
    /// Whether bins the gain pushes below the microphone's stationary noise floor are filled
    /// with noise of that floor's power (comfort noise), so the near end's background noise does
    /// not switch off whenever the far end talks. Off: the gain alone (the near end's noise is
    /// gated with the echo).
    public var comfortNoise = true
    /// The microphone's stationary noise floor as tracked for comfort noise, as an RMS level in
    /// dBFS (0 dB: a full-scale square wave) — computed when read, from the per-bin estimate.
    public var noiseFloorDbFS: Float {
        var total: Float = 0
        for bin in 0..<binCount { total += noisePower[bin] }
        // One-sided bins count twice in the full spectrum; Parseval over the transform size
        // and the analysis window's energy (block / 2) give the power per sample.
        let perSample = 4 * total / (Float(fft.size) * Float(blockCount))
        return 10 * Float(log10(Double(max(perSample, 1e-20))))
    }
    /// Whether near-end speech was detected in the last frame or the 150 ms before it: more
    /// than 10 % of the microphone's power lies above twice the echo expected in its bin (plus
    /// twice its stationary noise floor).
    public private(set) var isNearEndActive = false
    /// Whether the last frame was dominated by echo (far end active, most of the canceller's
    /// output judged echo) — a hint for stages after this one (an AGC should not adapt then).
    public private(set) var isEchoDominated = false
    /// Mean suppression of the last frame in dB (0: none), weighted by the output's power.
    public private(set) var lastSuppressionDb: Float = 0

    private let fft: RealFFT
    private let binCount: Int
    private let blockCount: Int  // 2 × frameCount, the analysis window
    private let window: UnsafeMutablePointer<Float>
    private let timeBuffer: UnsafeMutablePointer<Float>
    // Previous frame of each input (the first half of the next block).
    private let previousFar: UnsafeMutablePointer<Float>
    private let previousMicrophone: UnsafeMutablePointer<Float>
    private let previousLinear: UnsafeMutablePointer<Float>
    private let overlap: UnsafeMutablePointer<Float>  // second half of the last synthesis block
    // Spectra of the current block.
    private let farReal: UnsafeMutablePointer<Float>, farImaginary: UnsafeMutablePointer<Float>
    private let micReal: UnsafeMutablePointer<Float>, micImaginary: UnsafeMutablePointer<Float>
    private let linearReal: UnsafeMutablePointer<Float>, linearImaginary: UnsafeMutablePointer<Float>
    // Per-bin state.
    private let farPower: UnsafeMutablePointer<Float>      // far power spectrum of this frame
    private let historyLength: Int
    // Far powers per bin, newest first: bin b's last `historyLength` powers are
    // farHistory[b × 2L + historyPosition ..< + L] (each written twice, so always contiguous).
    private let farHistory: UnsafeMutablePointer<Float>
    private var historyPosition = 0
    private let echoPath: UnsafeMutablePointer<Float>      // binCount × historyLength power gains
    private let broadbandHistory: UnsafeMutablePointer<Float>  // far power summed over bins, per frame
    private let broadbandGain: UnsafeMutablePointer<Float>     // per-bin gain on it (distortion)
    private let leak: UnsafeMutablePointer<Float>          // residual fraction after the linear filter
    private let micPower: UnsafeMutablePointer<Float>      // smoothed power spectra
    private let linearPower: UnsafeMutablePointer<Float>
    private let rawGain: UnsafeMutablePointer<Float>
    private let predictedPower: UnsafeMutablePointer<Float>  // predicted echo power this frame
    private let regressorPower: UnsafeMutablePointer<Float>  // its NLMS regressor's energy
    private let linearEcho: UnsafeMutablePointer<Float>  // smoothed |microphone − linear output|²
    private let gain: UnsafeMutablePointer<Float>
    private var floorGain: Float
    /// Smoothing of the microphone and output power spectra per frame.
    private let psdSmoothing: Float = 0.6
    /// NLMS step of the power-domain echo path.
    private let learningStep: Float = 0.3
    /// A bin is "echo alone" while the microphone is below this × the predicted echo.
    private let echoAloneMargin: Float = 2
    /// Frames of excitation after a reset during which a bin's echo path learns upward at full
    /// speed (2.5 s).
    private let youngFrames: Int
    private let excitation: UnsafeMutablePointer<Int>     // frames each bin was excited since reset
    /// Frames over which the broadband far power is held (60 ms).
    private let broadbandLags: Int
    /// Where the microphone is below this × the predicted echo, echo dominates the bin and
    /// `echoDominantOverdrive` applies.
    private let dominanceRatio: Float = 2
    /// Smoothing of the leak per frame where echo is alone, when it falls (the filter got
    /// better: trust it slowly).
    private let leakSmoothing: Float = 0.8
    /// Smoothing of the leak when it rises (the filter got worse — speexdsp's output jumps
    /// when it misadapts, as it does in some reverberant rooms): follow within a frame or two,
    /// or the stale small leak lets that echo through while the slow smoothing catches up.
    /// Measured: +0.5 dB on the soft-clipping rooms, −0.008 double-talk correlation.
    private let leakRiseSmoothing: Float = 0.2
    /// Near-end speech is declared when the microphone power that the echo model cannot
    /// explain (in bins above `dominanceRatio` × the predicted echo, the excess) is more than
    /// this share of the microphone power.
    private let nearEndShare: Float = 0.1
    /// Frames the near-end decision is held after the last detection (150 ms): speech has
    /// short dips (stops, between syllables, word ends) that must not be taken for echo alone.
    /// (100 ms before soft talkers were tuned for: 150 ms added 0.006–0.012 of correlation with
    /// the near end 10 dB quieter, none at the benchmark level; ERLE and convergence unchanged.)
    private let nearEndHangoverFrames: Int
    private var nearEndHangover = 0
    /// The share once the linear filter has settled (`settledFrames`): a soft talker's excess
    /// is a smaller share of the microphone power. Why not from the start: before speexdsp
    /// has converged (2.5–3.5 s of far end alone) its output jumps in reverberant tails (the
    /// 20 ms room, seed 202: convergence went from 0 to 3.5 s at 5 % from the start), and those
    /// jumps must count as echo. Measured on seeds 0/101/202/303 with the near end 10 dB
    /// quieter: 0.816–0.868 at 10 %, 0.843–0.875 at 5 % once settled; 3 % flagged distortion
    /// and tails as near end (soft-clip ERLE down to 28 dB, one room never converged).
    private let settledNearEndShare: Float = 0.05
    /// Frames with far-end activity after which the linear filter counts as settled (3.5 s;
    /// counted again after `forgetEchoPath`, as the filter is reset with it).
    private let settledFrames: Int
    private var farActiveFrames = 0
    /// While the near end talks, a bin whose echo model is established counts as echo
    /// dominated (`echoDominantOverdrive`) only below this × its echo (not `dominanceRatio`):
    /// a soft talker's speech is rarely twice the echo in its bins, and at 2 most of it got the
    /// large overdrive. Measured on seeds 0/101/202/303, near end 10 dB quieter (with a 150 ms
    /// hangover): 0.884–0.899 at 1.2, 0.872–0.888 at 1.5 (100 ms hangover), 0.843–0.875 at 2
    /// (100 ms); soft-clip ERLE's worst seed 38 dB (45 at 2).
    private let settledNearEndDominance: Float = 1.2
    /// Smoothing per frame of the linear filter's echo estimate (microphone − output) power.
    private let linearEchoSmoothing: Float = 0.6
    // Comfort noise: a slow-rising minimum tracker on the linear filter's output power.
    /// Output power smoothed for the noise tracker (time constant 60 ms: less variance, so the
    /// tracked minimum sits closer to the noise's mean; short enough to reach into pauses).
    private let noiseInput: UnsafeMutablePointer<Float>
    private let noiseInputSmoothing: Float
    /// The tracked minimum per bin, before the bias correction.
    private let noiseMinimum: UnsafeMutablePointer<Float>
    /// Factor per frame by which the minimum rises while the power stays above it (1 dB/s).
    /// Why slow: a minimum that rose fast (or a windowed minimum over ~1.6 s) climbed onto the
    /// echo's own floor during continuous far-end speech in the noise-free rooms and filled
    /// the suppressed frames with echo-level noise (ERLE fell from ~60 to ~35 dB, convergence
    /// to 3–3.5 s); slow, it stays at the last true pause's level. The price: a noise that
    /// gets louder is followed at 1 dB/s (falls are followed within frames).
    private let noiseRise: Float
    /// Share of the way to a lower power the minimum moves per frame: not at once, so single
    /// deep dips of the noise's own fluctuation do not pull it down.
    private let noiseFall: Float = 0.1
    /// Lowest tracked floor per bin: the quantization noise of 16-bit samples (−101 dBFS), so
    /// the multiplicative rise can start from digital silence.
    private let noiseMinimumFloor: Float
    /// The stationary noise floor per bin (bias-corrected minimum), in analysis power units.
    private let noisePower: UnsafeMutablePointer<Float>
    /// The tracked minimum lies below the noise's mean power; measured on white and pink noise
    /// at 16 kHz with 10 ms frames: × 1.7 (2.3 dB) brings it back within 1 dB.
    private let noiseBias: Float = 1.7
    /// Power factor from the analysis spectrum to a random-phase synthesis spectrum of the same
    /// time-domain power: 2 × transform size / block (the analysis window's energy is block / 2,
    /// a random-phase spectrum spreads over the whole zero-padded transform).
    private let comfortNoiseScale: Float
    /// The near-end detector ignores microphone power up to this × the noise floor (background
    /// noise is not near-end speech). Measured (with an earlier, windowed tracker): without it,
    /// the white-noise case of the comfort noise test flagged enough echo frames as near end
    /// (and treated them gently) that the output without comfort noise kept 7 dB more.
    private let noiseDetectorMargin: Float = 2
    /// Random phases for comfort noise: cos and sin of 256 angles, indexed by the generator.
    private let phaseCosine: UnsafeMutablePointer<Float>
    private let phaseSine: UnsafeMutablePointer<Float>
    /// xorshift64 state: seeded (deterministic output, no Foundation randomness on the audio path).
    private var noiseState: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// Creates a suppressor for frames of `frameCount` samples at `sampleRate`.
    public init(frameCount: Int, sampleRate: Int) {
        precondition(frameCount > 0, "ResidualEchoSuppressor: frameCount must be positive")
        self.frameCount = frameCount
        self.sampleRate = sampleRate
        blockCount = 2 * frameCount
        var size = 4
        while size < blockCount { size *= 2 }
        fft = RealFFT(size: size)
        binCount = fft.binCount
        floorGain = Self.amplitude(-40)
        let frameMs = Float(frameCount) * 1_000 / Float(sampleRate)
        func buffer(_ count: Int) -> UnsafeMutablePointer<Float> {
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: count)
            pointer.initialize(repeating: 0, count: count)
            return pointer
        }
        window = buffer(blockCount)
        for index in 0..<blockCount {
            // Square-root periodic Hann: analysis × synthesis windows overlap-add to 1 at 50 %.
            window[index] = Float(sin(Double.pi * Double(index) / Double(blockCount)))
        }
        timeBuffer = buffer(size)
        previousFar = buffer(frameCount); previousMicrophone = buffer(frameCount); previousLinear = buffer(frameCount)
        overlap = buffer(frameCount)
        farReal = buffer(binCount); farImaginary = buffer(binCount)
        micReal = buffer(binCount); micImaginary = buffer(binCount)
        linearReal = buffer(binCount); linearImaginary = buffer(binCount)
        farPower = buffer(binCount)
        youngFrames = Int(2_500 / frameMs)
        historyLength = max(1, Int((300 / frameMs).rounded()))
        broadbandLags = max(1, Int((60 / frameMs).rounded()))
        nearEndHangoverFrames = max(1, Int((150 / frameMs).rounded()))
        settledFrames = max(1, Int((3_500 / frameMs).rounded()))
        farHistory = buffer(2 * historyLength * binCount)
        echoPath = buffer(historyLength * binCount)
        leak = buffer(binCount)
        broadbandHistory = buffer(historyLength)
        broadbandGain = buffer(binCount)
        excitation = .allocate(capacity: binCount)
        excitation.initialize(repeating: 0, count: binCount)
        micPower = buffer(binCount); linearPower = buffer(binCount)
        rawGain = buffer(binCount); gain = buffer(binCount)
        predictedPower = buffer(binCount); regressorPower = buffer(binCount); linearEcho = buffer(binCount)
        noiseInputSmoothing = Float(exp(-Double(frameMs) / 60))
        noiseRise = Float(pow(10, 0.1 * Double(frameMs) / 1_000))
        noiseMinimumFloor = Float(blockCount) / 2 / (12 * 32_768 * 32_768)
        noiseInput = buffer(binCount); noiseMinimum = buffer(binCount); noisePower = buffer(binCount)
        comfortNoiseScale = 2 * Float(size) / Float(blockCount)
        phaseCosine = buffer(256); phaseSine = buffer(256)
        for index in 0..<256 {
            phaseCosine[index] = Float(cos(2 * Double.pi * Double(index) / 256))
            phaseSine[index] = Float(sin(2 * Double.pi * Double(index) / 256))
        }
        reset()
    }

    deinit {
        excitation.deallocate()
        for pointer in [window, timeBuffer, previousFar, previousMicrophone, previousLinear, overlap, farReal, farImaginary,
                        micReal, micImaginary, linearReal, linearImaginary, farPower, micPower,
                        linearPower, rawGain, gain, predictedPower, regressorPower, linearEcho, farHistory, echoPath, leak, broadbandHistory, broadbandGain,
                        noiseInput, noiseMinimum, noisePower, phaseCosine, phaseSine] {
            pointer.deallocate()
        }
    }

    /// Forgets everything learnt and the signal history.
    public func reset() {
        for pointer in [previousFar, previousMicrophone, previousLinear, overlap] { pointer.update(repeating: 0, count: frameCount) }
        for pointer in [farPower, micPower, linearPower, linearEcho, noisePower] {
            pointer.update(repeating: 0, count: binCount)
        }
        // The noise tracker starts empty: its first frame sets every minimum.
        noiseInput.update(repeating: -1, count: binCount)
        noiseMinimum.update(repeating: 0, count: binCount)
        noiseState = 0x9E37_79B9_7F4A_7C15
        farHistory.update(repeating: 0, count: 2 * historyLength * binCount)
        broadbandHistory.update(repeating: 0, count: historyLength)
        gain.update(repeating: 1, count: binCount)
        nearEndHangover = 0
        isNearEndActive = false
        forgetEchoPath()
    }

    /// Forgets the learnt echo gains (not the signal history): call when the echo path or the
    /// linear filter before this stage changed abruptly (the filter was reset, the alignment moved).
    public func forgetEchoPath() {
        echoPath.update(repeating: 0, count: historyLength * binCount)
        broadbandGain.update(repeating: 0, count: binCount)
        excitation.update(repeating: 0, count: binCount)
        farActiveFrames = 0
        leak.update(repeating: 1, count: binCount)
    }

    /// Suppresses the residual echo in `linearOutput` (the linear canceller's output for
    /// `microphone`), given `farEnd` aligned to the echo as the canceller's reference was, into
    /// `output`, one frame late. All hold `frameCount` samples; `output` may alias
    /// `linearOutput` but not the others.
    public func process(microphone: UnsafePointer<Int16>, linearOutput: UnsafePointer<Int16>, farEnd: UnsafePointer<Int16>,
                        output: UnsafeMutablePointer<Int16>) {
        analyze(farEnd, previous: previousFar, real: farReal, imaginary: farImaginary)
        analyze(microphone, previous: previousMicrophone, real: micReal, imaginary: micImaginary)
        analyze(linearOutput, previous: previousLinear, real: linearReal, imaginary: linearImaginary)
        computeGains()
        // Apply and synthesize.
        for bin in 0..<binCount {
            linearReal[bin] *= gain[bin]
            linearImaginary[bin] *= gain[bin]
        }
        if comfortNoise { addComfortNoise() }
        fft.inverse(real: linearReal, imaginary: linearImaginary, output: timeBuffer)
        for index in 0..<frameCount {
            let sample = overlap[index] + timeBuffer[index] * window[index]
            overlap[index] = timeBuffer[index + frameCount] * window[index + frameCount]
            output[index] = Int16(max(-32_768, min(32_767, (sample * 32_768).rounded())))
        }
    }

    private func computeGains() {
        trackNoise()
        let smoothing = psdSmoothing
        var farTotal: Float = 0
        var linearTotal: Float = 0
        // Newest far power spectrum into the history ring.
        historyPosition = historyPosition == 0 ? historyLength - 1 : historyPosition - 1
        for bin in 0..<binCount {
            farPower[bin] = farReal[bin] * farReal[bin] + farImaginary[bin] * farImaginary[bin]
            farTotal += farPower[bin]
        }
        let stride = 2 * historyLength
        for bin in 0..<binCount {
            farHistory[bin * stride + historyPosition] = farPower[bin]
            farHistory[bin * stride + historyPosition + historyLength] = farPower[bin]
        }
        broadbandHistory[historyPosition] = farTotal / Float(binCount)
        var broadband: Float = 0
        for lag in 0..<min(broadbandLags, historyLength) {
            var row = historyPosition + lag
            if row >= historyLength { row -= historyLength }
            broadband = max(broadband, broadbandHistory[row])
        }
        // A bin is excited when its far power is within 30 dB of the mean bin power.
        let excitationFloor = max(1e-9, 1e-3 * farTotal / Float(binCount))
        let step = learningStep
        let margin = echoAloneMargin
        let alpha = leakSmoothing
        var weightedGain: Float = 0
        var micTotal: Float = 0
        var unexplained: Float = 0
        // First pass: smoothed powers and the predicted echo per bin, and what the prediction
        // leaves unexplained (for the near-end detector, which the second pass needs).
        for bin in 0..<binCount {
            let lr = linearReal[bin], li = linearImaginary[bin]
            let mr = micReal[bin], mi = micImaginary[bin]
            let linear = lr * lr + li * li
            let mic = mr * mr + mi * mi
            linearTotal += linear
            micPower[bin] = smoothing * micPower[bin] + (1 - smoothing) * mic
            linearPower[bin] = smoothing * linearPower[bin] + (1 - smoothing) * linear
            // Echo at the microphone predicted by the power-domain echo path (far power over
            // the last `historyLength` frames, each with its learnt gain).
            var predicted: Float = broadbandGain[bin] * broadband
            var regressorEnergy: Float = broadband * broadband
            let taps = echoPath + bin * historyLength
            let history = farHistory + bin * stride + historyPosition  // history[lag], newest first
            for lag in 0..<historyLength {
                let value = history[lag]
                predicted += taps[lag] * value
                regressorEnergy += value * value
            }
            predictedPower[bin] = predicted
            regressorPower[bin] = regressorEnergy
            // The echo the linear filter itself found (what it subtracted): where our model
            // under-predicts — spectral content it has not learnt yet, a tail it gets wrong —
            // speexdsp may still know the echo is there.
            let er = mr - lr, ei = mi - li
            linearEcho[bin] = linearEchoSmoothing * linearEcho[bin] + (1 - linearEchoSmoothing) * (er * er + ei * ei)
            micTotal += micPower[bin]
            let excess = micPower[bin] - dominanceRatio * max(predicted, linearEcho[bin]) - noiseDetectorMargin * noisePower[bin]
            if excess > 0 { unexplained += excess }
        }
        // Near-end activity detector. Why: one setting cannot serve both cases — removing a
        // distorting loudspeaker's echo needs a slow release and a large overdrive in every
        // bin, keeping near-end speech in double talk needs the opposite — so the frame is
        // classified and echo-only frames get the aggressive treatment. Why this feature: the
        // echo expected in a bin (the larger of our power-domain model's prediction, learnt on
        // the microphone so it holds before speexdsp converges and includes a distortion term,
        // and the echo the linear filter subtracted) comes from the far end alone; microphone
        // power well above it is something the far end did not cause — near-end speech (or
        // noise). Its share of the microphone power stays small while only echo plays and
        // jumps as soon as a talker speaks, even well below the echo's level (a 10 % share
        // flags it). Either estimate alone flagged echo as near end too often: the model
        // misses distortion it has not learnt and parts of reverberant tails, the linear
        // filter misses the distortion and everything while it converges; the maximum of the
        // two rarely misses both. Coherence would not do: the near end and a distorted echo
        // both lower it. Decided on this frame (not the last), so that a near-end onset is
        // protected from its first frame, and held for 150 ms across the dips of speech. A
        // missed near-end frame is suppressed hard, so the detector errs toward "near end".
        // Its known weakness is a soft talker: with the near end 10 dB below the benchmark's,
        // double-talk correlation is 0.81 (0.85 with one release for all frames, 0.94 with
        // speexdsp's suppressor). A lower share catches more of it (0.83 at 3 %, 0.84 at 1 %)
        // but flags reverberant tails as near end again (the 20 ms room's convergence went
        // back to 3.5 s on one seed, soft-clip ERLE fell to 25–30 dB). Hence 5 % only once
        // the linear filter has settled (`settledNearEndShare`), and a smaller overdrive in
        // near-end frames (`settledOverdrive`, `settledNearEndDominance`): 0.884–0.899 on
        // four seeds.
        if farTotal > 1e-6 && farActiveFrames < settledFrames { farActiveFrames += 1 }
        let share = farActiveFrames < settledFrames ? nearEndShare : settledNearEndShare
        if micTotal > 0 && unexplained > share * micTotal {
            nearEndHangover = nearEndHangoverFrames
        } else if nearEndHangover > 0 {
            nearEndHangover -= 1
        }
        isNearEndActive = nearEndHangover > 0
        let echoOnlyFrame = !isNearEndActive
        for bin in 0..<binCount {
            let predicted = predictedPower[bin]
            let regressorEnergy = regressorPower[bin]
            let taps = echoPath + bin * historyLength
            let history = farHistory + bin * stride + historyPosition
            // Learn the echo path (NLMS on powers) when the microphone is not much louder than
            // the predicted echo — echo alone — or while the model is young; near-end speech
            // (much louder than predicted) barely moves it.
            let error = micPower[bin] - predicted
            // Young = this bin has not yet heard enough far end (new spectral content keeps
            // learning fast however long the call has run).
            if farPower[bin] > excitationFloor { excitation[bin] += 1 }
            let young = excitation[bin] < youngFrames
            let echoAlone = micPower[bin] < margin * predicted
            // Downward at full speed; upward (more echo than modelled, or near-end speech that
            // happens to sit below the margin) slowly once the model is established, so double
            // talk cannot ratchet the model up into the near end.
            // In an echo-only frame every bin's excess is echo the model misses: learn it at the
            // echo-alone rate.
            let mu = young || error < 0 ? step : (echoAlone || echoOnlyFrame ? step * 0.1 : step * 0.02)
            if regressorEnergy > 1e-12 {
                let factor = mu * error / (regressorEnergy + 1e-9)
                broadbandGain[bin] = max(0, broadbandGain[bin] + factor * broadband)
                for lag in 0..<historyLength { taps[lag] = max(0, taps[lag] + factor * history[lag]) }
            }
            // How much of the echo the linear filter leaves (per bin), learnt where echo is alone
            // (in the bin, or in the whole frame).
            if (echoAlone || echoOnlyFrame) && predicted > 1e-9 {
                let fraction = min(1, linearPower[bin] / max(micPower[bin], 1e-12))
                let smoothing = fraction > leak[bin] ? leakRiseSmoothing : alpha
                leak[bin] = smoothing * leak[bin] + (1 - smoothing) * fraction
            }
            // The echo to suppress: in echo-only frames also what the linear filter found (see
            // the detector); not while the near end talks, where speexdsp's estimate can carry
            // near-end speech (its filter adapts a little in double talk) — measured, using it
            // there cost ~0.02 of double-talk correlation.
            let echo = echoOnlyFrame ? max(predicted, linearEcho[bin]) : predicted
            // Overdrive hard where the microphone holds little more than that echo (echo
            // dominates) and everywhere in echo-only frames; gently where the microphone is
            // clearly louder while the near end talks (its speech is there) — "clearly" meaning
            // less once the bin's model is established (`settledNearEndDominance`).
            let dominated = micPower[bin] < (young || echoOnlyFrame ? dominanceRatio : settledNearEndDominance) * echo
            let drive = dominated || echoOnlyFrame ? echoDominantOverdrive : (young ? overdrive : settledOverdrive)
            // Where the linear filter adds rather than removes (diverging, or just reset with a
            // wrong guess), start from the microphone instead (AEC1 does the same).
            let diverged = linearPower[bin] > micPower[bin]
            if diverged {
                linearReal[bin] = micReal[bin]
                linearImaginary[bin] = micImaginary[bin]
            }
            let base = diverged ? micPower[bin] : linearPower[bin]
            let residual = drive * (diverged ? 1 : leak[bin]) * echo
            rawGain[bin] = max(floorGain, 1 - residual / max(base, 1e-12))
        }
        for bin in 0..<binCount {
            let lr = linearReal[bin], li = linearImaginary[bin]
            weightedGain += rawGain[bin] * rawGain[bin] * (lr * lr + li * li)
        }
        let release = isNearEndActive ? releaseSmoothing : echoOnlyReleaseSmoothing
        // Smooth over frequency (3 taps) and, when the gain rises, over time.
        for bin in 0..<binCount {
            let low = rawGain[max(0, bin - 1)], high = rawGain[min(binCount - 1, bin + 1)]
            let smoothed = 0.25 * low + 0.5 * rawGain[bin] + 0.25 * high
            gain[bin] = smoothed < gain[bin] ? smoothed : release * gain[bin] + (1 - release) * smoothed
        }
        let suppression = linearTotal > 0 ? weightedGain / linearTotal : 1
        lastSuppressionDb = 10 * Float(log10(Double(max(suppression, 1e-6))))
        isEchoDominated = farTotal > 1e-6 && lastSuppressionDb < -6
    }

    /// Tracks the microphone's stationary noise floor per bin: a minimum of the smoothed power
    /// of the linear filter's output that follows falls within frames and rises slowly
    /// (`noiseRise`), times the minimum's bias. Updated in every frame — echo, near-end speech
    /// and all — because the minimum reaches into the pauses of both talkers, where only
    /// noise is left.
    private func trackNoise() {
        let alpha = noiseInputSmoothing
        let rise = noiseRise, fall = noiseFall, lowest = noiseMinimumFloor
        for bin in 0..<binCount {
            // The linear filter's output, not the microphone: it holds the same near-end noise
            // (a linear filter cannot cancel what the far end did not cause) with ~20 dB less
            // echo once converged, so the minimum is far less often the echo's own.
            let lr = linearReal[bin], li = linearImaginary[bin]
            let power = lr * lr + li * li
            let first = noiseInput[bin] < 0
            let smoothed = first ? power : alpha * noiseInput[bin] + (1 - alpha) * power
            noiseInput[bin] = smoothed
            var minimum = noiseMinimum[bin]
            if first {
                minimum = smoothed
            } else if smoothed < minimum {
                minimum += fall * (smoothed - minimum)
            } else {
                minimum *= rise
            }
            minimum = max(minimum, lowest)
            noiseMinimum[bin] = minimum
            noisePower[bin] = noiseBias * minimum
        }
    }

    /// Adds noise of the microphone's noise-floor power with random phase to each bin of the
    /// gained output spectrum, scaled by √(1 − gain²): the output keeps the floor where the gain
    /// removed it and gets nothing where the gain is 1. Expected output power of a bin holding
    /// only noise: gain² × floor + (1 − gain²) × floor = floor.
    private func addComfortNoise() {
        var state = noiseState
        let scale = comfortNoiseScale
        for bin in 0..<binCount {
            let g = gain[bin]
            let share = 1 - g * g
            guard share > 0, noisePower[bin] > 0 else { continue }
            let magnitude = (share * scale * noisePower[bin]).squareRoot()
            // xorshift64: cheap, allocation-free, deterministic.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            let phase = Int(truncatingIfNeeded: state >> 56)
            linearReal[bin] += magnitude * phaseCosine[phase]
            linearImaginary[bin] += magnitude * phaseSine[phase]
        }
        noiseState = state
    }

    /// Windows the previous and current frame into the transform buffer and transforms it.
    private func analyze(_ samples: UnsafePointer<Int16>, previous: UnsafeMutablePointer<Float>,
                         real: UnsafeMutablePointer<Float>, imaginary: UnsafeMutablePointer<Float>) {
        let scale: Float = 1 / 32_768
        for index in 0..<frameCount {
            timeBuffer[index] = previous[index] * window[index]
            let current = Float(samples[index]) * scale
            timeBuffer[index + frameCount] = current * window[index + frameCount]
            previous[index] = current
        }
        for index in blockCount..<fft.size { timeBuffer[index] = 0 }
        fft.forward(timeBuffer, real: real, imaginary: imaginary)
    }

    private static func amplitude(_ decibels: Float) -> Float { Float(pow(10, Double(decibels) / 20)) }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

