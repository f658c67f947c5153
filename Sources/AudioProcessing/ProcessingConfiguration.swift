// SPDX-License-Identifier: Apache-2.0
/// Which voice-processing stages run on the microphone signal, and their settings.
public struct ProcessingConfiguration: Sendable, Equatable {
    /// Echo cancellation (with delay alignment and residual echo suppression).
    public var echoCancellation: Bool
    /// Noise suppression.
    public var noiseSuppression: Bool
    /// Automatic gain control toward `agcTargetLevel`.
    public var automaticGainControl: Bool
    /// Voice activity detection (reported per frame; the samples are not gated).
    public var voiceActivityDetection: Bool
    /// Largest noise attenuation in dB (negative).
    public var noiseSuppressionDb: Int
    /// AGC target: the RMS level of the talker's speech (frames the speech probability calls
    /// speech), linear on a 16-bit scale. The default, 1 640, is −26 dBFS: ITU-T P.56's
    /// nominal active speech level, and within a dB of where speexdsp's AGC (which did this
    /// before) brought the speech fixtures at its own default (8 000 on its loudness scale).
    public var agcTargetLevel: Float
    /// Most gain the AGC adds, in dB (0–60). Every dB it may add to a quiet talker it may
    /// also add to the echo the canceller leaves, so this bounds how much residual echo the
    /// AGC can lift back up.
    public var agcMaximumGainDb: Int

    /// A configuration; everything off by default.
    public init(echoCancellation: Bool = false, noiseSuppression: Bool = false, automaticGainControl: Bool = false,
                voiceActivityDetection: Bool = false, noiseSuppressionDb: Int = -15, agcTargetLevel: Float = 1_640,
                agcMaximumGainDb: Int = 30) {
        self.echoCancellation = echoCancellation
        self.noiseSuppression = noiseSuppression
        self.automaticGainControl = automaticGainControl
        self.voiceActivityDetection = voiceActivityDetection
        self.noiseSuppressionDb = noiseSuppressionDb
        self.agcTargetLevel = agcTargetLevel
        self.agcMaximumGainDb = min(max(agcMaximumGainDb, 0), 60)
    }

    /// A call's processing (an audio session's voiceChat, videoChat and gameChat modes): echo
    /// cancellation, noise suppression, AGC and VAD all on.
    public static let voiceChat = ProcessingConfiguration(echoCancellation: true, noiseSuppression: true,
                                                          automaticGainControl: true, voiceActivityDetection: true)
    /// Every stage off, samples bit-exact (the measurement and default modes).
    public static let off = ProcessingConfiguration()

    /// Whether any stage runs.
    public var isProcessing: Bool {
        echoCancellation || noiseSuppression || automaticGainControl || voiceActivityDetection
    }
}
