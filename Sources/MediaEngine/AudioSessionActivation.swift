/// What an audio session hands `VoiceEngine.start(activatedBy:sampleRate:periodMs:)` and
/// `stop(deactivatedBy:)`: those entry points are SPI (`@_spi(AudioSession) import
/// MediaEngine`), so the only code that starts audio under `requiresAudioSession` is code
/// that asked for them by name — AudioSession's activation.
@_spi(AudioSession) public struct AudioSessionActivation: Sendable {
    /// A token for one activation or deactivation.
    public init() {}
}
