// SPDX-License-Identifier: Apache-2.0
import CSpeexDSP

/// Acoustic echo canceller: speexdsp's MDF adaptive filter, fed with a far-end reference that
/// is aligned by our own bulk-delay estimate (`DelayEstimator`), followed by a residual echo
/// suppressor (ours, `ResidualEchoSuppressor`, or speexdsp's preprocessor linked to the echo
/// state).
///
/// speexdsp cannot find a bulk delay: the echo must arrive within its filter (the tail). The
/// canceller keeps the far end in a delay line of up to `maximumDelayMs`, estimates where the
/// echo sits in the microphone signal, and hands speexdsp the far end delayed by that estimate
/// minus a small safety margin, so a short tail cancels echoes arriving 0–500 ms after playout.
/// When the estimate moves (route change, xrun) the filter is reset and re-converges.
///
/// The residual echo — what the linear filter leaves while it converges, and the echo of a
/// distorting loudspeaker that no linear filter models — is removed by a residual echo
/// suppressor: ours (`ResidualEchoSuppressor`, the default), speexdsp's, or none.
///
/// Call `process` once per frame of `frameCount` samples, on the real-time path: it allocates
/// nothing.
public final class EchoCanceller {
    /// Which residual echo suppressor runs after the linear filter.
    public enum ResidualSuppression: Sendable, Equatable {
        /// Ours: `ResidualEchoSuppressor` (driven by a learnt echo-power estimate and a
        /// near-end detector; handles a distorting loudspeaker and suppresses while the filter
        /// converges).
        case ours
        /// speexdsp's: its preprocessor linked to the echo state (with its denoiser at −15 dB).
        case speexdsp
        /// None: the linear filter's output as is.
        case none
    }

    /// How an `EchoCanceller` is built.
    public struct Configuration: Sendable, Equatable {
        /// Sample rate in Hz (8 000–48 000).
        public var sampleRate: Int
        /// Frame duration in milliseconds: 10 or 20.
        public var frameDurationMs: Int
        /// Length of speexdsp's adaptive filter in milliseconds (the echo tail it models).
        public var tailMs: Int
        /// Largest bulk delay the alignment follows, in milliseconds.
        public var maximumDelayMs: Int
        /// How much earlier than the estimated delay the reference is placed, in milliseconds,
        /// so that the start of the echo path stays inside the filter.
        public var alignmentMarginMs: Int
        /// Which residual echo suppressor runs after the linear filter.
        public var residualSuppression: ResidualSuppression
        /// Whether the bulk delay is estimated and followed (off: speexdsp alone with the
        /// reference as given, or at the known delay).
        public var delayEstimation: Bool
        /// A device-reported delay to start from, in milliseconds (`nil`: unknown), within
        /// `EchoCanceller.knownDelayRangeMs`.
        public var knownDelayMs: Int?
        /// Whether our residual echo suppressor fills what it removes with comfort noise at the
        /// microphone's noise floor (`ResidualEchoSuppressor.comfortNoise`), so the near end's
        /// background noise does not pump with the far end's speech. Ignored by the others.
        public var comfortNoise: Bool
        /// How our residual echo suppressor applies its gains: nil (the default) by overlap-add,
        /// a hop late (`residualHopMs`); a length in ms (`ResidualEchoSuppressor.lowLatencyFilterHalfLengthMs`)
        /// by a filter that long each side, that much late (4 ms instead of 10; see
        /// `ResidualEchoSuppressor.init(frameCount:sampleRate:filterHalfLengthMs:)` for what it
        /// costs and why it is not the default). Ignored by the others.
        public var residualFilterHalfLengthMs: Double?
        /// The hop of our residual echo suppressor's analysis in ms: 10 (the default), or 5,
        /// or 20 with 20 ms frames; it must divide the frame into whole samples. Overlap-add
        /// makes the suppressor a hop late, so 5 ms takes 4–6 ms off a call's mouth-to-ear
        /// (`voicecall latency --short-echo-hop`: 54 → 50 ms at 20 ms frames, 38 → 32 ms at
        /// 10 ms frames on 5 ms periods) on a transform half as long (100 Hz bins). Not the
        /// default, because the listener does not gain (one session, PESQ-WB, 10 → 5 ms):
        /// `benchmarks processing`'s voiceChat rows 3.315 → 3.335 on average (a headset in
        /// double talk 4.12 → 4.08), but the demo's clean call 4.07 / 4.00 → 4.04 / 3.94
        /// (`voicecall demo --fast --network none`, Alice → Bob / Bob → Alice) and its default
        /// network 2.765 / 2.629 → 2.792 / 2.577 (16 seeds); a soft-clipping loudspeaker in a
        /// 250 ms room keeps 35 dB of ERLE instead of 49 (`benchmarks aec`). Ignored by the
        /// others.
        public var residualHopMs: Int
        /// How long our residual echo suppressor's synthesis crossfades from one hop's gains to
        /// the next, in ms, which is the delay it adds: nil (the default) a hop, on the
        /// analysis's 50 % overlapping square-root Hann windows; shorter on asymmetric windows
        /// (`LowDelaySynthesis`), clamped to the hop; one that is not a positive number is
        /// `SpeexDSPError.invalidConfiguration`. A `CallMixer` left at nil takes
        /// `residualCrossfadeMs(callFrameDurationMs:)`. Ignored with `residualFilterHalfLengthMs`
        /// and by the others.
        public var residualCrossfadeMs: Double?

        /// The short crossfade, in ms: half the default 10 ms hop (where the gains fall on the
        /// audio they were computed from): 5 ms off the mouth-to-ear of a call that uses it.
        public static let shortResidualCrossfadeMs = 5.0

        /// The crossfade a call mixer gives the suppressor for calls of `callFrameDurationMs`
        /// frames: `shortResidualCrossfadeMs` at 10 ms frames (a call that chose its frames for
        /// delay), nil (a hop) at longer ones. Measured in one session (PESQ-WB, `voicecall demo
        /// --fast` on its default network, the hop → 5 ms): at 10 ms frames, 24 seeds, Alice →
        /// Bob +0.07 and Bob → Alice +0.03 (±0.02), and `voicecall latency --ptime 10
        /// --period-ms 5` 37.4–37.8 → 31.6–32.2 ms; at 20 ms frames, 40 seeds, +0.03 and −0.05 (±0.02:
        /// Bob's replies are double talk over his own voice coming back, where
        /// `benchmarks processing` loses 0.01–0.04 too) for 54.3 → 49.3 ms. A 2.5 ms crossfade
        /// misplaces the gains: 0.04–0.23 lower on the processing rows.
        public static func residualCrossfadeMs(callFrameDurationMs: Int) -> Double? {
            callFrameDurationMs <= 10 ? shortResidualCrossfadeMs : nil
        }

        /// A configuration; the defaults suit a 16 kHz, 10 ms voice pipeline.
        public init(sampleRate: Int = 16_000, frameDurationMs: Int = 10, tailMs: Int = 200,
                    maximumDelayMs: Int = 500, alignmentMarginMs: Int = 20,
                    residualSuppression: ResidualSuppression = .ours, delayEstimation: Bool = true,
                    knownDelayMs: Int? = nil, comfortNoise: Bool = true, residualFilterHalfLengthMs: Double? = nil,
                    residualHopMs: Int = 10, residualCrossfadeMs: Double? = nil) {
            self.sampleRate = sampleRate
            self.frameDurationMs = frameDurationMs
            self.tailMs = tailMs
            self.maximumDelayMs = maximumDelayMs
            self.alignmentMarginMs = alignmentMarginMs
            self.residualSuppression = residualSuppression
            self.delayEstimation = delayEstimation
            self.knownDelayMs = knownDelayMs
            self.comfortNoise = comfortNoise
            self.residualFilterHalfLengthMs = residualFilterHalfLengthMs
            self.residualHopMs = residualHopMs
            self.residualCrossfadeMs = residualCrossfadeMs
        }
    }

    /// The configuration this canceller was built with.
    public let configuration: Configuration
    /// Samples per frame.
    public let frameCount: Int
    /// The bulk-delay estimator (readable for statistics; tunable before processing starts).
    public let delayEstimator: DelayEstimator
    /// The delay currently applied to the reference before speexdsp, in samples.
    public private(set) var alignmentDelaySamples = 0
    /// How many times the alignment moved (each move resets the adaptive filter).
    public private(set) var alignmentChanges = 0

    /// The speexdsp echo state (a `VoiceProcessor` links its own preprocessor to it).
    let echo: SpeexEchoState
    private let residual: SpeexPreprocessState?
    /// Our residual echo suppressor (when configured), readable for its per-frame hints.
    public let residualEchoSuppressor: ResidualEchoSuppressor?
    private let linearOutput: UnsafeMutablePointer<Int16>
    private let delayLine: UnsafeMutablePointer<Int16>
    private let delayLineCount: Int
    private var writePosition = 0
    private let reference: UnsafeMutablePointer<Int16>
    private let marginSamples: Int
    /// Takes the linear filter out while no echo path is present.
    private var bypass: EchoFilterBypass
    private var presence: EchoPathPresence
    /// What the linear filter has learnt (evidence of a path in double talk).
    private let shape: EchoFilterShape

    /// Creates a canceller; throws when the frame duration or rate is unsupported or speexdsp
    /// cannot create its state.
    public init(configuration: Configuration = Configuration()) throws(SpeexDSPError) {
        guard (8_000...48_000).contains(configuration.sampleRate) else {
            throw .unsupportedSampleRate(configuration.sampleRate)
        }
        let frameCount = configuration.sampleRate * configuration.frameDurationMs / 1_000
        guard configuration.frameDurationMs == 10 || configuration.frameDurationMs == 20 else {
            throw .unsupportedFrameSize(frameCount: frameCount, sampleRate: configuration.sampleRate)
        }
        guard (1...2_000).contains(configuration.tailMs) else {
            throw .invalidConfiguration("tailMs \(configuration.tailMs) not in 1…2000")
        }
        guard (0...2_000).contains(configuration.maximumDelayMs) else {
            throw .invalidConfiguration("maximumDelayMs \(configuration.maximumDelayMs) not in 0…2000")
        }
        if let known = configuration.knownDelayMs, !Self.knownDelayRangeMs.contains(known) {
            throw .invalidConfiguration("knownDelayMs \(known) not in 0…2000")
        }
        guard configuration.alignmentMarginMs >= 0 else {
            throw .invalidConfiguration("alignmentMarginMs \(configuration.alignmentMarginMs) is negative")
        }
        let hop = configuration.residualHopMs
        guard hop > 0, configuration.frameDurationMs % hop == 0, frameCount % (configuration.frameDurationMs / hop) == 0 else {
            throw .invalidConfiguration(
                "residualHopMs \(hop) does not divide a \(configuration.frameDurationMs) ms frame of \(frameCount) samples")
        }
        if let crossfade = configuration.residualCrossfadeMs, !(crossfade.isFinite && crossfade > 0) {
            throw .invalidConfiguration("residualCrossfadeMs \(crossfade) is not a positive number of ms")
        }
        self.configuration = configuration
        self.frameCount = frameCount
        let tail = max(frameCount, configuration.sampleRate * configuration.tailMs / 1_000)
        echo = try SpeexEchoState(frameCount: frameCount, filterLength: tail, sampleRate: configuration.sampleRate)
        if configuration.residualSuppression == .speexdsp {
            let preprocess = try SpeexPreprocessState(frameCount: frameCount, sampleRate: configuration.sampleRate)
            try preprocess.set(SPEEX_PREPROCESS_SET_DENOISE, 1, name: "SPEEX_PREPROCESS_SET_DENOISE")
            try preprocess.set(SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, -15, name: "SPEEX_PREPROCESS_SET_NOISE_SUPPRESS")
            try preprocess.set(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, -45, name: "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS")
            try preprocess.set(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, -15, name: "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE")
            preprocess.setEchoState(echo)
            residual = preprocess
        } else {
            residual = nil
        }
        residualEchoSuppressor = configuration.residualSuppression == .ours
            ? ResidualEchoSuppressor(frameCount: frameCount, sampleRate: configuration.sampleRate,
                                     filterHalfLengthMs: configuration.residualFilterHalfLengthMs,
                                     hopsPerFrame: configuration.frameDurationMs / hop,
                                     crossfadeMs: configuration.residualCrossfadeMs) : nil
        residualEchoSuppressor?.comfortNoise = configuration.comfortNoise
        linearOutput = .allocate(capacity: frameCount)
        linearOutput.initialize(repeating: 0, count: frameCount)
        delayEstimator = DelayEstimator(sampleRate: configuration.sampleRate, maximumDelayMs: configuration.maximumDelayMs)
        marginSamples = configuration.sampleRate * configuration.alignmentMarginMs / 1_000
        delayLineCount = delayEstimator.maximumDelaySamples + 2 * frameCount
        delayLine = .allocate(capacity: delayLineCount)
        delayLine.initialize(repeating: 0, count: delayLineCount)
        reference = .allocate(capacity: frameCount)
        reference.initialize(repeating: 0, count: frameCount)
        bypass = EchoFilterBypass(frameCount: frameCount)
        presence = EchoPathPresence(frameDurationMs: configuration.frameDurationMs)
        shape = EchoFilterShape(echo: echo, sampleRate: configuration.sampleRate, frameDurationMs: configuration.frameDurationMs)
        if let known = configuration.knownDelayMs { setKnownDelay(ms: known) }
    }

    deinit {
        residual?.setEchoState(nil)
        delayLine.deallocate()
        reference.deallocate()
        linearOutput.deallocate()
    }

    /// Latency the canceller adds to the microphone signal, in samples: ours, a hop or half its
    /// gain filter (`ResidualEchoSuppressor.latencySamples`); speexdsp's preprocessor, one frame
    /// (it overlaps frames by half); none without a residual echo suppressor.
    public var latencySamples: Int {
        if let residualEchoSuppressor { return residualEchoSuppressor.latencySamples }
        return residual == nil ? 0 : frameCount
    }

    /// Whether the far end reaches the microphone (`EchoPathPresence`: false until the delay
    /// estimator's correlation or the linear filter's converged shape shows it; always true
    /// without delay estimation). While false the canceller passes the microphone as it is,
    /// `latencySamples` late.
    public var echoPathPresent: Bool { !configuration.delayEstimation || presence.isPresent }

    /// Whether evidence has shown the path present or absent since the canceller started or
    /// was reset (`EchoPathPresence.isDecided`).
    var echoPathDecided: Bool { !configuration.delayEstimation || presence.isDecided }

    /// Whether the far end plays over a path not yet shown present or absent and the microphone
    /// is quieter than it, as an echo would be: what the microphone holds may be that echo,
    /// unremoved (a stage after this one, an AGC, should not adapt then). A near-end talker
    /// over the far end is not held: held on every far-end frame, or where the microphone was
    /// 6 dB below the far end, the AGC missed the first 2–3 s of a headset call that starts in
    /// double talk (`benchmarks processing`, its first pass: 3.75 against 3.85 held at 10 dB).
    var isFarEndPlayingOverAnUndecidedPath: Bool {
        configuration.delayEstimation && !presence.isDecided && presence.isFarEndPlaying && presence.isMicrophoneBelowFarEnd
    }

    /// The delay currently applied to the reference, in milliseconds.
    public var alignmentDelayMs: Double { Double(alignmentDelaySamples) * 1_000 / Double(configuration.sampleRate) }

    /// Whether the estimator finds the echo at the reference's own instant — within half the
    /// alignment margin (10 ms by default) — with confidence. It searches only later lags, so
    /// an echo that arrives *before* its reference correlates best at or near that edge (a
    /// leading PulseAudio echo settled at 4 ms with 80 % confidence, and the filter took
    /// 1–7 dB off it): on a device with buffering in its path, where the engine keeps the
    /// reference well ahead of the echo, this is the sign that the reference leads the echo
    /// and no alignment can cancel it (`CallMixer` then moves the reference).
    public var echoAtReferenceEdge: Bool {
        guard configuration.delayEstimation, let delay = delayEstimator.delaySamples else { return false }
        return delay < max(marginSamples / 2, 2 * delayEstimator.blockCount) && delayEstimator.confidence >= delayEstimator.minimumConfidence
    }

    /// The device-reported delays the canceller accepts, in milliseconds: the range of
    /// `maximumDelayMs`, beyond which no alignment can follow anyway.
    public static let knownDelayRangeMs = 0...2_000

    /// Aligns the reference to a device-reported delay (e.g. the sum of `snd_pcm_delay` on both
    /// streams), in milliseconds; the estimator still corrects it when it finds otherwise.
    /// A delay outside `knownDelayRangeMs` is clamped to it (the alignment itself stops at
    /// `maximumDelayMs`).
    public func setKnownDelay(ms: Int) {
        // Clamped before multiplying: a delay from outside (a device, a command line) of
        // 10^15 ms used to overflow `sampleRate × ms`.
        let clamped = min(max(ms, Self.knownDelayRangeMs.lowerBound), Self.knownDelayRangeMs.upperBound)
        forceAlignment(forEchoDelay: configuration.sampleRate * clamped / 1_000)
    }

    /// Forgets the adaptive filter, the delay estimate and the reference history.
    public func reset() {
        echo.reset()
        bypass.reset()
        presence.reset()
        shape.filterReset()
        residualEchoSuppressor?.reset()
        delayEstimator.reset()
        delayLine.update(repeating: 0, count: delayLineCount)
        alignmentDelaySamples = 0
        if let known = configuration.knownDelayMs { setKnownDelay(ms: known) }
    }

    /// Removes the echo of `farEnd` (what was played, frame by frame as played) from
    /// `microphone` into `output`. All three hold exactly `frameCount` samples; `output` may
    /// not alias the inputs.
    public func process(microphone: UnsafeBufferPointer<Int16>, farEnd: UnsafeBufferPointer<Int16>,
                        output: UnsafeMutableBufferPointer<Int16>) {
        precondition(microphone.count == frameCount && farEnd.count == frameCount && output.count == frameCount,
                     "EchoCanceller.process: frames must hold \(frameCount) samples")
        // Delay line: append the far-end frame.
        for index in 0..<frameCount {
            delayLine[writePosition] = farEnd[index]
            writePosition += 1
            if writePosition == delayLineCount { writePosition = 0 }
        }
        if configuration.delayEstimation, delayEstimator.process(farEnd: farEnd, microphone: microphone),
           let delay = delayEstimator.delaySamples {
            applyAlignment(forEchoDelay: delay)
        }
        if configuration.delayEstimation {
            // The correlation is evidence only while the far end may be in the microphone: it
            // holds still over the near end talking alone, and counted there it let the echo
            // model learn upward from the near end's turn (`benchmarks processing`, turns, 120 ms
            // room: 3.93 against 3.94 with this).
            presence.update(confidence: delayEstimator.mayHearFarEnd ? delayEstimator.confidence : 0,
                            shape: FilterShapeReading(showsPath: shape.showsPath, showsNoPath: shape.showsNoPath),
                            farEnd: farEnd, microphone: microphone)
            // A filter converged on a real path holds the alignment against weaker candidates.
            delayEstimator.minimumConfidenceToMove = shape.showsPath ? EchoPathPresence.onsetConfidence : delayEstimator.minimumConfidence
        }
        let present = echoPathPresent
        // Reference = far end `alignmentDelaySamples` ago, ending with the newest sample.
        var readPosition = writePosition - frameCount - alignmentDelaySamples
        while readPosition < 0 { readPosition += delayLineCount }
        for index in 0..<frameCount {
            reference[index] = delayLine[readPosition]
            readPosition += 1
            if readPosition == delayLineCount { readPosition = 0 }
        }
        if let residualEchoSuppressor {
            // Undecided, the suppressor learns upward too where the far end plays and the
            // microphone is under it, so that it is ready when an echo alone is found (`benchmarks
            // aec`'s 20 ms room reached 20 dB in its first 500 ms window after the first 400 ms,
            // against 1.5 s otherwise); its gains stay 1 until the path is present. Learning
            // every undecided frame took a near end talking over an echo from the first word
            // for that echo (`EchoInTheLoopTests`, 120 ms room: 0.865 → 0.820).
            residualEchoSuppressor.echoPathEvident = !configuration.delayEstimation || presence.isCorrelated
                || (!presence.isDecided && presence.isFarEndPlaying && presence.isMicrophoneUnderFarEnd)
            residualEchoSuppressor.echoPathPresent = present
            residualEchoSuppressor.isFarEndPlaying = presence.isFarEndPlaying
            echo.cancel(microphone: microphone.baseAddress!, reference: reference, output: linearOutput)
            if configuration.delayEstimation { shape.update(farEndPlaying: presence.isFarEndPlaying) }
            bypass.apply(microphone: microphone.baseAddress!, output: linearOutput, present: present)
            residualEchoSuppressor.process(microphone: microphone.baseAddress!, linearOutput: linearOutput,
                                           farEnd: reference, output: output.baseAddress!)
        } else {
            echo.cancel(microphone: microphone.baseAddress!, reference: reference, output: output.baseAddress!)
            if configuration.delayEstimation { shape.update(farEndPlaying: presence.isFarEndPlaying) }
            bypass.apply(microphone: microphone.baseAddress!, output: output.baseAddress!, present: present)
            if let residual { residual.run(output.baseAddress!) }
        }
    }

    /// Sets the alignment unconditionally (a device-reported delay).
    private func forceAlignment(forEchoDelay delay: Int) {
        alignmentDelaySamples = min(max(0, delay - marginSamples), delayEstimator.maximumDelaySamples)
        alignmentChanges += 1
        echo.reset()
        shape.filterReset()
        residualEchoSuppressor?.forgetEchoPath()
    }

    private func applyAlignment(forEchoDelay delay: Int) {
        let aligned = min(max(0, delay - marginSamples), delayEstimator.maximumDelaySamples)
        // Inside the tolerance the adaptive filter absorbs the difference; moving (and
        // resetting it) would only cost convergence.
        guard abs(aligned - alignmentDelaySamples) > marginSamples else { return }
        alignmentDelaySamples = aligned
        alignmentChanges += 1
        echo.reset()
        shape.filterReset()
        residualEchoSuppressor?.forgetEchoPath()
    }
}
