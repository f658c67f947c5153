// SPDX-License-Identifier: Apache-2.0
/// What the local microphone gave and what voice processing did to it, named as the W3C
/// WebRTC statistics name them (`RTCAudioSourceStats`) where a name exists there.
public struct MediaSourceStatistics: Sendable, Equatable, BitwiseCopyable {
    /// Level of the processed microphone, 0…1 (1 = full scale), the peak of the last 100 ms.
    public var audioLevel = 0.0
    /// Energy of the processed microphone: Σ (sample / full scale)² × sample duration.
    public var totalAudioEnergy = 0.0
    /// Seconds of microphone audio processed.
    public var totalSamplesDuration = 0.0
    /// Ours: energy of the microphone as captured, before voice processing (the same measure
    /// as `totalAudioEnergy`): the two say what processing took out.
    public var totalMicrophoneEnergy = 0.0
    /// Echo return loss in dB: how much quieter the echo reaching the microphone is than
    /// the audio played, measured while the far end talks (nil before it has).
    public var echoReturnLoss: Double?
    /// Echo return loss enhancement in dB: how much the echo canceller took out of the
    /// microphone while the far end talks alone (frames where the near end talks, and calls
    /// with no echo path, are left out; nil before 25 frames were measured).
    public var echoReturnLossEnhancement: Double?
    /// Ours: the bulk delay the echo canceller aligned the far end by, in ms.
    public var echoDelayMs = 0.0
    /// Ours: whether voice activity detection judged the last frame speech.
    public var voiceActivity = true
    /// Ours: capture device faults (overruns) reported to the mixer.
    public var captureXruns = 0
    /// Ours: playback device faults (underruns) reported to the mixer.
    public var playbackXruns = 0
    /// Ours: times the device restarted capture and playback together.
    public var deviceRestarts = 0
    /// Ours: the resampling correction that keeps the microphone on the loudspeaker's clock,
    /// in ppm (0 on one clock).
    public var deviceDriftCorrectionPpm = 0.0
    /// Ours: how far the echo reference runs ahead of the microphone inside the mixer, in ms
    /// (the canceller's own alignment adds to it).
    public var echoReferenceLagMs = 0.0
    /// Ours: reference samples dropped because the microphone fell behind the loudspeaker.
    public var echoReferenceDiscardedSamples = 0
    /// Ours: microphone frames processed without a reference because the loudspeaker fell
    /// behind.
    public var echoReferenceMissingFrames = 0
    /// Ours: where the canceller's delay estimator finds the echo behind the reference, in ms
    /// (nil before its first confident estimate); `echoDelayMs` is the alignment it chose.
    public var echoDelayEstimateMs: Double?
    /// Ours: the estimator's normalised correlation at that delay (0–1).
    public var echoDelayConfidence = 0.0
    /// Ours: times the echo reference was found leading the echo and moved
    /// (`CallMixer.correctLeadingEchoReference`).
    public var echoReferenceLeadCorrections = 0

    /// All zero.
    public init() {}
}
