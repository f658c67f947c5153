// SPDX-License-Identifier: Apache-2.0
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
        /// The device went away (the engine lost it); ends when it is back.
        case routeDisconnected = 4
        /// Another process holds the device (EBUSY on open); ends when it frees. Ours: iOS has none.
        case deviceBusy = 100
    }

    /// Why the route changed (AVAudioSession.RouteChangeReason's values).
    public enum RouteChangeReason: Int, Sendable {
        /// No reason known.
        case unknown = 0
        /// A device appeared and the route moved to it.
        case newDeviceAvailable = 1
        /// A device of the route went away.
        case oldDeviceUnavailable = 2
        /// The category changed.
        case categoryChange = 3
        /// The output was overridden (or the override ended).
        case override = 4
        /// The machine woke (never sent).
        case wakeFromSleep = 6
        /// No route suits the category (never sent: the route is then empty).
        case noSuitableRouteForCategory = 7
        /// The preferred input or the media services changed the route.
        case routeConfigurationChange = 8
    }

    /// The session stopped being active: its audio stopped. `by` names the session that
    /// interrupted it (nil when the device went away).
    case interruptionBegan(reason: InterruptionReason, by: String?)
    /// The interruption is over; with `shouldResume` the interrupter deactivated with
    /// `notifyOthersOnDeactivation` and the app may reactivate. Audio does not restart by itself.
    case interruptionEnded(shouldResume: Bool)
    /// The session's route (`currentRoute`) changed from `previousRoute`, for `reason`.
    case routeChanged(reason: RouteChangeReason, previousRoute: AudioSession.RouteDescription)
    /// The sound server or device layer is gone: every session was deactivated and
    /// activation fails (`mediaServicesLost`) until `mediaServicesWereReset`.
    case mediaServicesWereLost
    /// The media services are back: every session is inactive and uninterrupted, its
    /// configuration (category, mode, options, preferences) kept and applied at the next
    /// activation. Audio does not restart by itself: the app reactivates.
    case mediaServicesWereReset
}
