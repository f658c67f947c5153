/// Something that happened to an audio session, in order.
public enum AudioSessionEvent: Sendable, Equatable {
    /// Why an interruption began (AVAudioSession.InterruptionReason's values).
    public enum InterruptionReason: Int, Sendable {
        /// Another session took the audio.
        case `default` = 0
        /// Deprecated on iOS; never sent.
        case appWasSuspended = 1
        /// The built-in microphone was muted.
        case builtInMicMuted = 2
        /// The device went away (the engine lost it).
        case routeDisconnected = 4
    }

    /// The session stopped being active: its audio stopped. `by` names the session that
    /// interrupted it (nil when the device went away).
    case interruptionBegan(reason: InterruptionReason, by: String?)
    /// The interruption is over; with `shouldResume` the interrupter deactivated with
    /// `notifyOthersOnDeactivation` and the app may reactivate. Audio does not restart by itself.
    case interruptionEnded(shouldResume: Bool)
}
