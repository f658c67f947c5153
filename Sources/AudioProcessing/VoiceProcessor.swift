// SPDX-License-Identifier: Apache-2.0
import CSpeexDSP

/// The uplink voice-processing chain for one microphone: echo cancellation (`EchoCanceller`,
/// with our `ResidualEchoSuppressor` by default) then one speexdsp preprocessor for noise
/// suppression, AGC and VAD, each switched by a `ProcessingConfiguration` — typically a
/// preset (`.voiceChat`, `.off`) an audio session's mode chooses.
///
/// speexdsp's AGC would lift what echo is left in far-end-only talk along with everything
/// else, so while the residual echo suppressor reports an echo-dominated frame the AGC is held
/// for that frame (neither applied nor adapted). With speexdsp's residual suppressor chosen
/// instead (`EchoCanceller.Configuration.residualSuppression = .speexdsp`), the preprocessor is
/// linked to the echo state, as speexdsp intends.
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

    private let preprocessor: SpeexPreprocessState
    private let usesSpeexResidualSuppression: Bool
    /// Whether the AGC is currently held for an echo-dominated frame.
    private var agcHeld = false
    /// The VAD decision from the preprocessor's speech probability.
    private var voiceGate = VoiceActivityGate()

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
        self.configuration = configuration
        try apply(configuration)
    }

    /// Switches stages and settings (between frames).
    public func setConfiguration(_ configuration: ProcessingConfiguration) throws(SpeexDSPError) {
        try apply(configuration)
        self.configuration = configuration
    }

    private func apply(_ configuration: ProcessingConfiguration) throws(SpeexDSPError) {
        // speexdsp's residual echo suppression works through the denoiser's gains, so with it
        // the denoiser runs whenever echo cancellation does (at −1 dB noise attenuation when NS
        // is off).
        let speexResidual = configuration.echoCancellation && usesSpeexResidualSuppression
        let denoise = configuration.noiseSuppression || speexResidual
        try preprocessor.set(SPEEX_PREPROCESS_SET_DENOISE, denoise ? 1 : 0, name: "SPEEX_PREPROCESS_SET_DENOISE")
        let noiseDb = configuration.noiseSuppression ? Int32(configuration.noiseSuppressionDb) : -1
        try preprocessor.set(SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, noiseDb, name: "SPEEX_PREPROCESS_SET_NOISE_SUPPRESS")
        try preprocessor.set(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, -45, name: "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS")
        try preprocessor.set(SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, -15, name: "SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE")
        preprocessor.setEchoState(speexResidual ? echoCanceller.echo : nil)
        agcHeld = false
        try preprocessor.set(SPEEX_PREPROCESS_SET_AGC, configuration.automaticGainControl ? 1 : 0, name: "SPEEX_PREPROCESS_SET_AGC")
        try preprocessor.setFloat(SPEEX_PREPROCESS_SET_AGC_LEVEL, configuration.agcTargetLevel, name: "SPEEX_PREPROCESS_SET_AGC_LEVEL")
        try preprocessor.set(SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, Int32(configuration.agcMaximumGainDb), name: "SPEEX_PREPROCESS_SET_AGC_MAX_GAIN")
        // Never SPEEX_PREPROCESS_SET_VAD: it prints a warning on stderr (`VoiceActivityGate`).
        voiceGate.reset()
    }

    deinit { preprocessor.setEchoState(nil) }

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
        if configuration.isProcessing {
            // Hold the AGC while the frame is echo (far end talking, our suppressor removing
            // most of the signal): otherwise it would lift the residual echo it hears.
            if configuration.automaticGainControl, configuration.echoCancellation,
               let suppressor = echoCanceller.residualEchoSuppressor {
                let hold = suppressor.isEchoDominated
                if hold != agcHeld {
                    preprocessor.setAGCEnabled(!hold)
                    agcHeld = hold
                }
            }
            preprocessor.run(output.baseAddress!)
            isVoiceActive = configuration.voiceActivityDetection
                ? voiceGate.decide(speechProbabilityPercent: preprocessor.speechProbabilityPercent) : true
        } else {
            isVoiceActive = true
        }
        return isVoiceActive
    }
}
