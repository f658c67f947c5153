/// The audio-session modes that decide voice processing (after AVAudioSession's modes).
public enum VoiceProcessingMode: String, Sendable, CaseIterable {
    /// No processing unless the app asks for it.
    case `default`
    /// A call: echo cancellation, noise suppression, AGC and VAD all on.
    case voiceChat
    /// Measurement: every stage off, samples pass bit-exact.
    case measurement
}
