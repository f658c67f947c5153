// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Dispatch
import Locking

/// The sessions of one process and who holds the audio: the registry every `AudioSession`
/// shares. Activation, interruption and their ends are decided here, under one lock, so two
/// sessions never both believe they hold non-mixable audio. Make one per process (or one per
/// test: nothing here is global).
///
/// Rules (ours where iOS is silent, tested):
/// - A session mixes when its options in effect contain mixWithOthers (ambient always;
///   duckOthers and interruptSpokenAudioAndMixWithOthers bring it).
/// - Activating S fails with insufficientPriority when an active session of higher priority
///   does not mix with S (either of them not mixable).
/// - A non-mixable S interrupts every other active session (all of priority ≤ S's by the rule
///   above): their I/O stops, they become inactive and get `interruptionBegan(.default)`.
///   A mixable S interrupts nobody; with duckOthers the others report `isDucked`.
/// - When S deactivates, each session it interrupted (and no other active session still holds)
///   gets `interruptionEnded(shouldResume:)`: true with notifyOthersOnDeactivation, false
///   without — iOS may send no end at all; ours always does. When S is itself interrupted
///   by T, the sessions S held are held by T from then on (their end comes with T's
///   deactivation); when S loses its device, they end at once (shouldResume false).
/// - The app's own setActive on an interrupted session supersedes its interruption (no end).
/// - A lost device interrupts its session (`.routeDisconnected`), superseded the same way,
///   and ended (shouldResume true) by the `checkDevices()` that finds it back.
/// - A device another process holds (EBUSY on open) fails the activation with `deviceBusy`
///   and interrupts the session (`.deviceBusy`) until `checkDevices()` finds it free.
/// - Media services lost (the sound server refuses connections: on open, after a device loss,
///   or at `checkDevices()`): every session stops and is deactivated, all get
///   `mediaServicesWereLost`, activation fails with `mediaServicesLost`. Reset, when the
///   server answers again: every session inactive and uninterrupted (the reset supersedes
///   every interruption), configuration kept, `mediaServicesWereReset`; nothing restarts.
/// - Routes: each session's from the device list, its category, options, preferred input and
///   override; an I/O that follows routes (`VoiceEngine`) opens its route's PCM and, while
///   active, is stopped, moved and started again when the route moves.
public final class AudioSessionCenter: Sendable {
    struct Record {
        let name: String
        let priority: AudioSession.Priority
        let sink: AudioSessionEventSink
        var category: AudioSession.Category = .soloAmbient
        var mode: AudioSession.Mode = .default
        var options: AudioSession.CategoryOptions = AudioSessionCompatibility.impliedOptions(of: .soloAmbient)
        var preferences = AudioSession.Preferences()
        var hardware: AudioSession.Hardware?
        var io: (any AudioSessionIO)?
        var isActive = false
        /// The sessions whose activation interrupted this one (and still hold it).
        var interruptedBy: Set<UInt64> = []
        /// Interrupted by the device going away.
        var lostDevice = false
        /// Interrupted by another process holding the device.
        var deviceBusy = false
        /// The input asked for with `setPreferredInput`.
        var preferredInput: AudioSession.PortDescription?
        /// The output override, until the next route change.
        var outputOverride: AudioSession.PortOverride = .none
        /// The route last reported.
        var route = AudioSession.RouteDescription()

        var mixes: Bool { options.contains(.mixWithOthers) }
        var isInterrupted: Bool { !interruptedBy.isEmpty || lostDevice || deviceBusy }
    }

    struct State {
        var records: [UInt64: Record] = [:]
        var nextID: UInt64 = 1
        /// The device list at the last check.
        var devices: [AudioDeviceInfo] = []
        /// Why the media services are gone, nil while they answer.
        var servicesLost: String?
    }

    let state = Locked(State())
    /// Where device-loss notices are handled (never on the engine's thread, which may hold its lock).
    let queue = DispatchQueue(label: "AudioSessionCenter")
    /// The device list and the sound server's health.
    let deviceLayer: AudioSessionDeviceLayer
    /// The timer of `startMonitoringDevices`.
    let monitor = Locked<(any DispatchSourceTimer)?>(nil)

    /// An empty registry with no devices (`AudioSessionDeviceLayer.none`): no routes, and
    /// media services lost only when an engine's device reports it.
    public convenience init() { self.init(deviceLayer: .none) }

    /// An empty registry whose routes come from `deviceLayer` (`.alsa()`, or a scripted one
    /// in tests), read now and at every `checkDevices()`.
    public init(deviceLayer: AudioSessionDeviceLayer) {
        self.deviceLayer = deviceLayer
        let devices = deviceLayer.devices()
        let failure = deviceLayer.servicesFailure()
        state.withLock {
            $0.devices = devices
            $0.servicesLost = failure
        }
    }

    deinit {
        monitor.withLock { $0?.cancel() }
    }

    /// Waits until every device-loss notice received so far has been handled.
    public func waitForPendingNotices() { queue.sync {} }

    func register(name: String, priority: AudioSession.Priority, sink: AudioSessionEventSink) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.records[id] = Record(name: name, priority: priority, sink: sink)
            state.records[id]!.route = Self.route(of: state.records[id]!, devices: state.devices)
            return id
        }
    }

    func unregister(_ id: UInt64) {
        deactivate(id, notifyingOthers: false)
        let io = state.withLock { $0.records.removeValue(forKey: id)?.io }
        io?.setDeviceLossHandler(nil)
    }

    func read<T>(_ id: UInt64, _ body: (Record, State) -> T) -> T {
        state.withLock { state in body(state.records[id]!, state) }
    }

    /// While the session is active the change applies at once, as on iOS: refused (nothing
    /// changes) only where an activation in the new configuration would be — the attached I/O
    /// records or plays and the category does not, or a higher-priority active session does
    /// not mix with it; a new mode's processing restarts the I/O (calls stay); a session that
    /// no longer mixes interrupts the others, as its activation would have.
    func setCategory(_ id: UInt64, _ category: AudioSession.Category, mode: AudioSession.Mode,
                     options: AudioSession.CategoryOptions) throws(AudioSessionError) {
        let effective = try AudioSessionCompatibility.validate(category: category, mode: mode, options: options)
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            let before = state.records[id]!
            var after = before
            after.category = category
            after.mode = mode
            after.options = effective
            if before.isActive { try Self.checkActivation(of: after, id, in: state) }
            let changed = before.category != category
            state.records[id]!.category = category
            state.records[id]!.mode = mode
            state.records[id]!.options = effective
            if changed { state.records[id]!.outputOverride = .none }
            if before.isActive {
                if before.mode.processing != mode.processing, let io = before.io, io.isRunningIO {
                    Self.restart(&state, id, io)
                }
                if state.records[id]!.isActive && !after.mixes { Self.interruptOthers(&state, by: id) }
            }
            Self.updateRoute(&state, id, reason: .categoryChange, always: changed)
        }
    }

    /// Refuses what an activation of `record` would refuse: I/O the category does not do, or a
    /// higher-priority active session that does not mix with it.
    static func checkActivation(of record: Record, _ id: UInt64, in state: State) throws(AudioSessionError) {
        if let io = record.io {
            if io.records && !record.category.records { throw .cannotStartRecording(category: record.category) }
            if io.plays && !record.category.plays { throw .cannotStartPlaying(reason: "category \(record.category) does not play") }
        }
        for (other, active) in state.records where other != id && active.isActive && active.priority > record.priority {
            if !(record.mixes && active.mixes) { throw .insufficientPriority(heldBy: active.name) }
        }
    }

    /// Stops and starts `id`'s running I/O with its record's processing and preferences (the
    /// mode changed while active); a device that will not start again interrupts the session
    /// as a lost (or busy) one.
    static func restart(_ state: inout State, _ id: UInt64, _ io: any AudioSessionIO) {
        let record = state.records[id]!
        io.stopIO()
        do throws(AudioSessionError) {
            state.records[id]!.hardware = try io.startIO(processing: record.mode.processing, preferences: record.preferences)
        } catch {
            interruptForFailedStart(&state, id, error)
        }
    }

    /// The I/O of active session `id` did not start again (a route move, a mode change): the
    /// session is interrupted as a lost device (or a busy one), or every session loses the
    /// media services.
    static func interruptForFailedStart(_ state: inout State, _ id: UInt64, _ error: AudioSessionError) {
        if case let .mediaServicesLost(reason) = error {
            loseServices(&state, reason: reason)
            return
        }
        let record = state.records[id]!
        state.records[id]!.isActive = false
        state.records[id]!.hardware = nil
        release(&state, heldBy: id, shouldResume: false)
        if case .deviceBusy = error {
            state.records[id]!.deviceBusy = true
            record.sink.post(.interruptionBegan(reason: .deviceBusy, by: nil))
        } else {
            state.records[id]!.lostDevice = true
            record.sink.post(.interruptionBegan(reason: .routeDisconnected, by: nil))
        }
    }

    /// Non-mixable `id` holds the audio: every other active session stops and is interrupted
    /// by it, and those they held are held by `id` from now on.
    static func interruptOthers(_ state: inout State, by id: UInt64) {
        let name = state.records[id]!.name
        for other in state.records.keys where other != id && state.records[other]!.isActive {
            state.records[other]!.io?.stopIO()
            state.records[other]!.isActive = false
            state.records[other]!.hardware = nil
            state.records[other]!.interruptedBy = [id]
            state.records[other]!.sink.post(.interruptionBegan(reason: .default, by: name))
            // Those `other` held are held by this session now: its deactivation ends
            // their interruption too (else nothing would once `other` stays inactive).
            for held in state.records.keys where state.records[held]!.interruptedBy.contains(other) {
                state.records[held]!.interruptedBy.remove(other)
                state.records[held]!.interruptedBy.insert(id)
            }
        }
    }

    func setPreferences(_ id: UInt64, _ preferences: AudioSession.Preferences) throws(AudioSessionError) {
        try preferences.validate()
        state.withLock { $0.records[id]!.preferences = preferences }
    }

    func attach(_ id: UInt64, _ io: any AudioSessionIO) throws(AudioSessionError) {
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            guard !state.records[id]!.isActive else { throw .isBusy(reason: "deactivate the session before attaching") }
            if let owner = state.records.first(where: { $0.key != id && $0.value.io === io }) {
                throw .isBusy(reason: "the engine belongs to session \(owner.value.name)")
            }
            state.records[id]!.io = io
        }
        let ioID = ObjectIdentifier(io)
        io.setDeviceLossHandler { [weak self] in
            self?.queue.async { [weak self] in self?.deviceLost(id, ioID) }
        }
    }

    func detach(_ id: UInt64) throws(AudioSessionError) {
        let io = try state.withLock { (state: inout State) throws(AudioSessionError) -> (any AudioSessionIO)? in
            guard !state.records[id]!.isActive else { throw .isBusy(reason: "deactivate the session before detaching") }
            defer { state.records[id]!.io = nil }
            return state.records[id]!.io
        }
        io?.setDeviceLossHandler(nil)
    }

    func activate(_ id: UInt64) throws(AudioSessionError) {
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            let me = state.records[id]!
            guard !me.isActive else { return }
            if let reason = state.servicesLost { throw .mediaServicesLost(reason: reason) }
            try Self.checkActivation(of: me, id, in: state)
            let hardware: AudioSession.Hardware?
            do throws(AudioSessionError) {
                if let io = me.io, let device = io.routeDevice(for: me.route), device != io.deviceName {
                    try io.useDevice(named: device)
                }
                hardware = try me.io?.startIO(processing: me.mode.processing, preferences: me.preferences)
            } catch {
                switch error {
                case .deviceBusy:
                    if !me.isInterrupted { me.sink.post(.interruptionBegan(reason: .deviceBusy, by: nil)) }
                    state.records[id]!.deviceBusy = true
                case let .mediaServicesLost(reason):
                    Self.loseServices(&state, reason: reason)
                default: break
                }
                throw error
            }
            state.records[id]!.hardware = hardware
            state.records[id]!.isActive = true
            // The app's own activation supersedes an interruption.
            state.records[id]!.interruptedBy = []
            state.records[id]!.lostDevice = false
            state.records[id]!.deviceBusy = false
            guard !me.mixes else { return }
            Self.interruptOthers(&state, by: id)
        }
    }

    func deactivate(_ id: UInt64, notifyingOthers: Bool) {
        state.withLock { state in
            guard state.records[id] != nil else { return }
            // Stop (the engine joins its audio thread, applying what it left queued: drained),
            // then deactivate, then tell the others.
            if state.records[id]!.isActive { state.records[id]!.io?.stopIO() }
            state.records[id]!.isActive = false
            state.records[id]!.hardware = nil
            state.records[id]!.interruptedBy = []
            state.records[id]!.lostDevice = false
            state.records[id]!.deviceBusy = false
            Self.release(&state, heldBy: id, shouldResume: notifyingOthers)
        }
    }

    /// Ends the interruption of every session `id` held (and nothing else holds).
    static func release(_ state: inout State, heldBy id: UInt64, shouldResume: Bool) {
        for other in state.records.keys where state.records[other]!.interruptedBy.contains(id) {
            state.records[other]!.interruptedBy.remove(id)
            guard !state.records[other]!.isInterrupted else { continue }
            state.records[other]!.sink.post(.interruptionEnded(shouldResume: shouldResume))
        }
    }

    /// The engine stopped because its device went away: the server gone (media services
    /// lost), the device taken by another process (busy) or simply gone (route disconnected).
    private func deviceLost(_ id: UInt64, _ ioID: ObjectIdentifier) {
        let failure = deviceLayer.servicesFailure()
        state.withLock { state in
            guard let record = state.records[id], let io = record.io, ObjectIdentifier(io) == ioID,
                  record.isActive, !io.isRunningIO else { return }
            let probe = failure == nil ? io.probeDevice() : nil
            if let failure {
                Self.loseServices(&state, reason: failure)
                return
            }
            if case let .mediaServicesLost(reason) = probe {
                Self.loseServices(&state, reason: reason)
                return
            }
            // The device stopped by itself; the activation ends with it (the app's own
            // `start()` is refused until the next one).
            io.stopIO()
            state.records[id]!.isActive = false
            state.records[id]!.hardware = nil
            // Nobody holds the audio it held any more.
            Self.release(&state, heldBy: id, shouldResume: false)
            if case .deviceBusy = probe {
                state.records[id]!.deviceBusy = true
                record.sink.post(.interruptionBegan(reason: .deviceBusy, by: nil))
            } else {
                state.records[id]!.lostDevice = true
                record.sink.post(.interruptionBegan(reason: .routeDisconnected, by: nil))
            }
        }
    }
}
