// SPDX-License-Identifier: Apache-2.0
import CSpeexDSP

/// The uplink voice-processing chain for one microphone: echo cancellation (`EchoCanceller`,
/// with our `ResidualEchoSuppressor` by default), noise suppression, AGC and VAD, each switched
/// by a `ProcessingConfiguration` — typically a preset (`.voiceChat`, `.off`) an audio
/// session's mode chooses.
///
/// Noise suppression runs inside our residual echo suppressor's transform when echo
/// cancellation does (`ResidualEchoSuppressor.noiseSuppressionDb`), and on its own transform
/// otherwise (`NoiseSuppressor`, a frame late); the AGC (`AutomaticGainControl`) works in the
/// time domain and adds no delay. So voiceChat delays the microphone by our suppressor's
/// synthesis alone (`latencySamples`: 10 ms by default) — speexdsp's preprocessor, which did
/// NS and AGC before, overlap-added a frame of its own on top. That preprocessor still
/// computes the speech probability the VAD (`VoiceActivityGate`) and the AGC decide from, on a
/// copy of the frame whose output is not used.
///
/// The AGC would lift what echo is left in far-end-only talk along with everything else, so
/// while the residual echo suppressor reports an echo-dominated frame it is held for that
/// frame (neither applied differently nor adapted). With speexdsp's residual suppressor
/// chosen instead (`EchoCanceller.Configuration.residualSuppression = .speexdsp`), speexdsp's
/// preprocessor does NS and AGC as before, linked to the echo state, as speexdsp intends.
///
/// Everything is allocated in `init`; `process` allocates nothing, and switching the
/// configuration only sets flags (it may run between frames).
public final class VoiceProcessor {
    /// Samples per frame.
    public let frameCount: Int
    /// Sample rate in Hz.
    public let sampleRate: Int
    /// The stages in effect.
    public private(set) var configuration: ProcessingConfiguration
    /// The echo canceller (always built, used when `configuration.echoCancellation`).
    public let echoCanceller: EchoCanceller
    /// The VAD decision for the last frame (true when VAD is off).
    public private(set) var isVoiceActive = true

    /// speexdsp's preprocessor: the speech probability (on a copy of the frame), or with
    /// speexdsp's residual suppressor the whole NS and AGC.
    private let preprocessor: SpeexPreprocessState
    private let usesSpeexResidualSuppression: Bool
    /// Noise suppression for a chain without our residual echo suppressor.
    private let noiseSuppressor: NoiseSuppressor
    private var gainControl: AutomaticGainControl
    /// The frame the preprocessor computes the speech probability from (it rewrites it).
    private let probabilityFrame: UnsafeMutablePointer<Int16>
    /// Whether the AGC is currently held for an echo-dominated frame (speexdsp's chain).
    private var agcHeld = false
    /// The VAD decision from the preprocessor's speech probability.
    private var voiceGate = VoiceActivityGate()

    /// speexdsp's AGC level for a target speech RMS: its loudness measure (a weighted spectral
    /// power) reads about 14 dB above the RMS of speech (its default level, 8 000, brings the
    /// speech fixtures to about the default target, 1 640).
    static let speexLoudnessPerRMS: Float = 8_000 / 1_640

    /// Creates a processor for `sampleRate` and 10 or 20 ms frames.
    public init(sampleRate: Int = 16_000, frameDurationMs: Int = 10, configuration: ProcessingConfiguration,
                echoCancellerConfiguration: EchoCanceller.Configuration? = nil) throws(SpeexDSPError) {
        var echoConfiguration = echoCancellerConfiguration ?? EchoCanceller.Configuration()
        echoConfiguration.sampleRate = sampleRate
        echoConfiguration.frameDurationMs = frameDurationMs
        // speexdsp's residual suppression runs inside our preprocessor below (linked to the echo
        // state), not in a second preprocessor inside the canceller.
        usesSpeexResidualSuppression = echoConfiguration.residualSuppression == .speexdsp
        if usesSpeexResidualSuppression { echoConfiguration.residualSuppression = .none }
        echoCanceller = try EchoCanceller(configuration: echoConfiguration)
        self.sampleRate = sampleRate
        frameCount = echoCanceller.frameCount
        preprocessor = try SpeexPreprocessState(frameCount: frameCount, sampleRate: sampleRate)
        noiseSuppressor = NoiseSuppressor(frameCount: frameCount, sampleRate: sampleRate,
                                          floorDb: Float(configuration.noiseSuppressionDb))
        gainControl = AutomaticGainControl(frameCount: frameCount, sampleRate: sampleRate,
                                           targetLevel: configuration.agcTargetLevel,
                                           maximumGainDb: Float(configuration.agcMaximumGainDb))
        probabilityFrame = .allocate(capacity: frameCount, filledWith: 0)
        self.configuration = configuration
        try apply(configuration)
    }

    /// Switches stages and settings (between frames). A value out of range
    /// (`noiseSuppressionDb` outside −100…0, `agcTargetLevel` outside 1…32 767 or not a number)
    /// is refused with `SpeexDSPError.invalidConfiguration` and changes nothing.
    public func setConfiguration(_ configuration: ProcessingConfiguration) throws(SpeexDSPError) {
        try apply(configuration)
        self.configuration = configuration
    }

    /// Delay the chain adds to the microphone signal in the current configuration, in samples.
    public var latencySamples: Int {
        var latency = configuration.echoCancellation ? echoCanceller.latencySamples : 0
        if usesSpeexResidualSuppression {
            if configuration.isProcessing { latency += frameCount }
        } else if configuration.noiseSuppression && !noiseSuppressionInEchoCanceller {
            latency += noiseSuppressor.latencySamples
        }
        return latency
    }

    /// Whether noise suppression runs inside our residual echo suppressor.
    private var noiseSuppressionInEchoCanceller: Bool {
        configuration.echoCancellation && echoCanceller.residualEchoSuppressor != nil
    }

    /// Largest noise attenuation accepted, in dB: deeper is silence in every practical sense.
    static let noiseSuppressionDbRange = -100...0
    /// AGC targets accepted: a speech RMS a 16-bit sample can carry.
    static let agcTargetLevelRange: ClosedRange<Float> = 1...32_767

    /// Refuses values the stages cannot work with, before anything changes: the AGC divides
    /// by its target and converts the gained samples back to 16 bits, where a target that is
    /// not a number would trap on the audio thread.
    private static func validate(_ configuration: ProcessingConfiguration) throws(SpeexDSPError) {
        guard noiseSuppressionDbRange.contains(configuration.noiseSuppressionDb) else {
            throw .invalidConfiguration("noiseSuppressionDb \(configuration.noiseSuppressionDb) not in -100…0")
        }
        guard agcTargetLevelRange.contains(configuration.agcTargetLevel) else {
            throw .invalidConfiguration("agcTargetLevel \(configuration.agcTargetLevel) not in 1…32767")
        }
    }

    private func apply(_ configuration: ProcessingConfiguration) throws(SpeexDSPError) {
        try Self.validate(configuration)
        let noiseDb = Float(configuration.noiseSuppressionDb)
        echoCanceller.residualEchoSuppressor?.noiseSuppressionDb =
            configuration.noiseSuppression && configuration.echoCancellation ? noiseDb : nil
        noiseSuppressor.floorDb = noiseDb
        gainControl.targetLevel = configuration.agcTargetLevel
        gainControl.maximumGainDb = Float(configuration.agcMaximumGainDb)
        // speexdsp's residual echo suppression works through the denoiser's gains, so with it
        // the denoiser runs whenever echo cancellation does (at −1 dB noise attenuation when NS
        // is off). In our chain the preprocessor only computes the speech probability.
        let speexChain = usesSpeexResidualSuppression
        let speexResidual = configuration.echoCancellation && speexChain
        let denoise = speexChain && (configuration.noiseSuppression || speexResidual)
        try preprocessor.set(SPEEX_PREPROCESS_SET_DENOISE, denoise ? 1 : 0, name: "SPEEX_PREPROCESS_SET_DENOISE")
        let speexNoiseDb = configuration.noiseSuppression ? Int32(configuration.noiseSuppressionDb) : -1
        try preprocessor.set(SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, speexNoiseDb, name: "SPEEX_PREPROCESS_SET_NOISE_SUPPRESS")
        try preprocessor.set(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, -45, name: "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS")
        try preprocessor.set(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, -15, name: "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE")
        preprocessor.setEchoState(speexResidual ? echoCanceller.echo : nil)
        agcHeld = false
        let speexAGC = speexChain && configuration.automaticGainControl
        try preprocessor.set(SPEEX_PREPROCESS_SET_AGC, speexAGC ? 1 : 0, name: "SPEEX_PREPROCESS_SET_AGC")
        try preprocessor.setFloat(SPEEX_PREPROCESS_SET_AGC_LEVEL, configuration.agcTargetLevel * Self.speexLoudnessPerRMS,
                                  name: "SPEEX_PREPROCESS_SET_AGC_LEVEL")
        try preprocessor.set(SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, Int32(configuration.agcMaximumGainDb), name: "SPEEX_PREPROCESS_SET_AGC_MAX_GAIN")
        // Never SPEEX_PREPROCESS_SET_VAD: it prints a warning on stderr (`VoiceActivityGate`).
        voiceGate.reset()
    }

    deinit {
        preprocessor.setEchoState(nil)
        probabilityFrame.deallocate()
    }

    /// Processes one frame of `microphone` into `output` (`frameCount` samples each), with
    /// `farEnd` the frame just played (the echo reference; ignored when echo cancellation is
    /// off). Returns the VAD decision (true when VAD is off).
    @discardableResult
    public func process(microphone: UnsafeBufferPointer<Int16>, farEnd: UnsafeBufferPointer<Int16>,
                        output: UnsafeMutableBufferPointer<Int16>) -> Bool {
        precondition(microphone.count == frameCount && output.count == frameCount,
                     "VoiceProcessor.process: frames must hold \(frameCount) samples")
        if configuration.echoCancellation {
            echoCanceller.process(microphone: microphone, farEnd: farEnd, output: output)
        } else {
            for index in 0..<frameCount { output[index] = microphone[index] }
        }
        guard configuration.isProcessing else {
            isVoiceActive = true
            return isVoiceActive
        }
        let samples = output.baseAddress!
        let residual = configuration.echoCancellation ? echoCanceller.residualEchoSuppressor : nil
        let echoDominated = residual?.isEchoDominated == true
        // Our AGC also holds through far-end-only frames and while the echo path is learnt:
        // the echo left there, taken for the talker, would make it lift the near end's next
        // words (by 8 dB after the demo's first far-end turn).
        let farEndTurn = echoDominated || residual?.isFarEndOnly == true || residual?.isLearningEchoPath == true
            || (configuration.echoCancellation && echoCanceller.isFarEndPlayingOverAnUndecidedPath)
        var probabilityPercent: Int32 = 100
        if usesSpeexResidualSuppression {
            // speexdsp's chain: its preprocessor does NS and AGC on the frame itself. Hold the
            // AGC while the frame is echo: otherwise it would lift the residual echo it hears.
            if configuration.automaticGainControl, echoDominated != agcHeld {
                preprocessor.setAGCEnabled(!echoDominated)
                agcHeld = echoDominated
            }
            preprocessor.run(samples)
            probabilityPercent = preprocessor.speechProbabilityPercent
        } else {
            if configuration.noiseSuppression && !noiseSuppressionInEchoCanceller { noiseSuppressor.process(samples) }
            if configuration.automaticGainControl || configuration.voiceActivityDetection {
                probabilityFrame.update(from: samples, count: frameCount)
                preprocessor.run(probabilityFrame)
                probabilityPercent = preprocessor.speechProbabilityPercent
            }
            if configuration.automaticGainControl {
                gainControl.process(samples, speechProbability: Float(probabilityPercent) / 100, hold: farEndTurn)
            }
        }
        isVoiceActive = configuration.voiceActivityDetection ? voiceGate.decide(speechProbabilityPercent: probabilityPercent) : true
        return isVoiceActive
    }
}
