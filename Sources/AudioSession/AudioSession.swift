// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// An audio session after AVAudioSession: the category, mode and options an app's audio
/// runs under, validated against iOS's table before anything changes; the preferences
/// applied at activation; and the gate — `setActive(true)` is what starts the attached
/// engine's device I/O, `setActive(false)` (or an interruption) what stops it.
///
/// ```swift
/// let center = AudioSessionCenter()
/// let session = AudioSession(name: "call", priority: .call, center: center)
/// try session.setCategory(.playAndRecord, mode: .voiceChat)
/// try session.attach(engine)                 // engine.configuration.requiresAudioSession = true
/// try session.setActive(true)                // voiceChat processing, then device I/O
/// try session.setActive(false, options: .notifyOthersOnDeactivation)
/// ```
///
/// Differences from iOS, chosen: a mode the category does not take is refused (iOS falls back
/// to default silently), options name themselves in errors (iOS says −50), deactivating never fails with
/// isBusy (I/O is stopped and drained first), and every interruption ends with an event
/// (by another session: at its deactivation; a lost or busy device: when `checkDevices()`
/// finds it back; any: at a media services reset). A device another process holds fails the
/// activation (`deviceBusy`) and interrupts the session until it frees.
///
/// Routes come from the center's `AudioSessionDeviceLayer` (`AudioSessionRoutes` maps ALSA
/// PCMs to port types); an attached engine runs on its route's PCM and moves with it.
public final class AudioSession: Sendable {
    /// The name other sessions' events and errors give this one.
    public let name: String
    /// Its rank against other sessions of the center.
    public let priority: Priority
    /// The registry it shares with the process's other sessions.
    public let center: AudioSessionCenter
    /// Interruptions, route changes, media services lost and reset, in order; buffers the newest 256.
    public let events: AsyncStream<AudioSessionEvent>

    let id: UInt64
    private let sink: AudioSessionEventSink

    /// A new, inactive session in `center`: soloAmbient, default mode, no options.
    public init(name: String = "session", priority: Priority = .normal, center: AudioSessionCenter) {
        self.name = name
        self.priority = priority
        self.center = center
        let (events, continuation) = AsyncStream.makeStream(of: AudioSessionEvent.self, bufferingPolicy: .bufferingNewest(256))
        self.events = events
        sink = AudioSessionEventSink(continuation: continuation)
        id = center.register(name: name, priority: priority, sink: sink)
    }

    deinit {
        center.unregister(id)
        sink.finish()
    }

    // MARK: Configuration

    /// Sets category, mode and options together, after checking them against the table
    /// (`AudioSessionCompatibility`); on error nothing changes. Options do not carry over from
    /// the previous category: what is not passed is off (implied options aside).
    ///
    /// Allowed while active, as on iOS (an app sets `.playAndRecord`/`.voiceChat` inside
    /// `didActivate`, or before answering a second call): a new mode's processing restarts
    /// the device I/O (its calls stay), a session that stops mixing interrupts the others as
    /// its activation would, and a route change with reason `categoryChange` follows a new
    /// category. Refused while active only where activating in the new configuration would be.
    /// - Throws: `optionNotAllowed`/`modeNotAllowed` naming what and the categories that take
    ///   it, `unknownOptions`; while active, `cannotStartRecording`/`cannotStartPlaying` (the
    ///   attached engine records and plays) and `insufficientPriority`.
    public func setCategory(_ category: Category, mode: Mode = .default, options: CategoryOptions = []) throws(AudioSessionError) {
        try center.setCategory(id, category, mode: mode, options: options)
    }

    /// The category.
    public var category: Category { center.read(id) { record, _ in record.category } }
    /// The mode.
    public var mode: Mode { center.read(id) { record, _ in record.mode } }
    /// The options in effect: those set plus those the category and mode imply.
    public var categoryOptions: CategoryOptions { center.read(id) { record, _ in record.options } }

    /// Sets the hardware preferences applied at the next activation.
    /// - Throws: `preferenceOutOfRange` naming the value; nothing changes then.
    public func setPreferences(_ preferences: Preferences) throws(AudioSessionError) {
        try center.setPreferences(id, preferences)
    }

    /// The preferences.
    public var preferences: Preferences { center.read(id) { record, _ in record.preferences } }
    /// What the device runs with since the last activation (nil while inactive or without I/O).
    public var hardware: Hardware? { center.read(id) { record, _ in record.hardware } }

    // MARK: The gate

    /// Makes `io` (a `VoiceEngine`) this session's: its device I/O starts and stops with the
    /// session's activation.
    /// - Throws: `isBusy` while active, or when `io` belongs to another session.
    public func attach(_ io: any AudioSessionIO) throws(AudioSessionError) {
        try center.attach(id, io)
    }

    /// Lets the attached I/O go.
    /// - Throws: `isBusy` while active.
    public func detach() throws(AudioSessionError) {
        try center.detach(id)
    }

    /// Activates (applies the mode's processing and the preferences, starts device I/O,
    /// interrupts the sessions a non-mixable activation displaces) or deactivates (stops and
    /// drains device I/O, deactivates, tells the sessions it interrupted that their
    /// interruption ended — that they may resume with `notifyOthersOnDeactivation`).
    /// Blocks its caller. Activating an active session or deactivating an inactive one does
    /// nothing; either ends an interruption of this session (superseded, no event).
    /// - Throws: `notifyOthersOnlyWhenDeactivating`, `insufficientPriority`,
    ///   `cannotStartRecording`/`cannotStartPlaying` (the I/O does what the category does not,
    ///   or the device would not start), `isBusy`, `mediaServicesFailed`, `resourceNotAvailable`.
    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws(AudioSessionError) {
        if active {
            guard !options.contains(.notifyOthersOnDeactivation) else { throw .notifyOthersOnlyWhenDeactivating }
            try center.activate(id)
        } else {
            center.deactivate(id, notifyingOthers: options.contains(.notifyOthersOnDeactivation))
        }
    }

    /// Whether the session is active (false again once interrupted).
    public var isActive: Bool { center.read(id) { record, _ in record.isActive } }
    /// Whether an interruption began and has not ended.
    public var isInterrupted: Bool { center.read(id) { record, _ in record.isInterrupted } }
    /// Whether another active session plays with duckOthers over this active one.
    public var isDucked: Bool {
        center.read(id) { record, state in
            record.isActive && state.records.contains { $0.key != id && $0.value.isActive && $0.value.options.contains(.duckOthers) }
        }
    }
    /// Whether another session of the center is active.
    public var isOtherAudioPlaying: Bool {
        center.read(id) { _, state in state.records.contains { $0.key != id && $0.value.isActive } }
    }

    // MARK: Routes

    /// The inputs this session may record from (`AudioSessionRoutes`): none when the category
    /// does not record; Bluetooth HFP only with allowBluetoothHFP.
    public var availableInputs: [PortDescription] { center.availableInputs(id) }
    /// Where the session's audio comes from and goes to now.
    public var currentRoute: RouteDescription { center.read(id) { record, _ in record.route } }
    /// The input asked for (kept while it is unavailable; used whenever it is available).
    public var preferredInput: PortDescription? { center.read(id) { record, _ in record.preferredInput } }

    /// Chooses the input (nil: the route's own choice); a route change with reason
    /// routeConfigurationChange follows when the route moves.
    /// - Throws: `portNotAvailable` when `port` is not among `availableInputs`.
    public func setPreferredInput(_ port: PortDescription?) throws(AudioSessionError) {
        try center.setPreferredInput(id, port)
    }

    /// Sends output to the built-in speaker (`.speaker`) until the next route change or
    /// category change, or back to the route's own choice (`.none`); a route change with
    /// reason override follows when the route moves.
    /// - Throws: `incompatibleCategory` outside playAndRecord.
    public func overrideOutputAudioPort(_ override: PortOverride) throws(AudioSessionError) {
        try center.overrideOutput(id, override)
    }

    // MARK: Events

    /// Delivers every event also to `handler`, on `queue` (nil clears it): the delegate form
    /// of `events`, for code that is not async.
    public func setEventHandler(queue: DispatchQueue, _ handler: (@Sendable (AudioSessionEvent) -> Void)?) {
        sink.setHandler(queue: queue, handler)
    }
}
