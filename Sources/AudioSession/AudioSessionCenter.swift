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
///   without — iOS may send no end at all; ours always does.
/// - The app's own setActive on an interrupted session supersedes its interruption (no end).
/// - A lost device interrupts its session (`.routeDisconnected`), superseded the same way.
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

        var mixes: Bool { options.contains(.mixWithOthers) }
        var isInterrupted: Bool { !interruptedBy.isEmpty || lostDevice }
    }

    struct State {
        var records: [UInt64: Record] = [:]
        var nextID: UInt64 = 1
    }

    let state = Locked(State())
    /// Where device-loss notices are handled (never on the engine's thread, which may hold its lock).
    let queue = DispatchQueue(label: "AudioSessionCenter")

    /// An empty registry.
    public init() {}

    /// Waits until every device-loss notice received so far has been handled.
    public func waitForPendingNotices() { queue.sync {} }

    func register(name: String, priority: AudioSession.Priority, sink: AudioSessionEventSink) -> UInt64 {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.records[id] = Record(name: name, priority: priority, sink: sink)
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

    func setCategory(_ id: UInt64, _ category: AudioSession.Category, mode: AudioSession.Mode,
                     options: AudioSession.CategoryOptions) throws(AudioSessionError) {
        let effective = try AudioSessionCompatibility.validate(category: category, mode: mode, options: options)
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            guard !state.records[id]!.isActive else { throw .isBusy(reason: "deactivate the session before changing its category") }
            state.records[id]!.category = category
            state.records[id]!.mode = mode
            state.records[id]!.options = effective
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
            if let io = me.io {
                if io.records && !me.category.records { throw .cannotStartRecording(category: me.category) }
                if io.plays && !me.category.plays { throw .cannotStartPlaying(reason: "category \(me.category) does not play") }
            }
            for (other, record) in state.records where other != id && record.isActive && record.priority > me.priority {
                if !(me.mixes && record.mixes) { throw .insufficientPriority(heldBy: record.name) }
            }
            let hardware = try me.io?.startIO(processing: me.mode.processing, preferences: me.preferences)
            state.records[id]!.hardware = hardware
            state.records[id]!.isActive = true
            // The app's own activation supersedes an interruption.
            state.records[id]!.interruptedBy = []
            state.records[id]!.lostDevice = false
            guard !me.mixes else { return }
            for other in state.records.keys where other != id && state.records[other]!.isActive {
                state.records[other]!.io?.stopIO()
                state.records[other]!.isActive = false
                state.records[other]!.hardware = nil
                state.records[other]!.interruptedBy = [id]
                state.records[other]!.sink.post(.interruptionBegan(reason: .default, by: me.name))
            }
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
            for other in state.records.keys where state.records[other]!.interruptedBy.contains(id) {
                state.records[other]!.interruptedBy.remove(id)
                guard !state.records[other]!.isInterrupted else { continue }
                state.records[other]!.sink.post(.interruptionEnded(shouldResume: notifyingOthers))
            }
        }
    }

    private func deviceLost(_ id: UInt64, _ ioID: ObjectIdentifier) {
        state.withLock { state in
            guard let record = state.records[id], let io = record.io, ObjectIdentifier(io) == ioID,
                  record.isActive, !io.isRunningIO else { return }
            state.records[id]!.isActive = false
            state.records[id]!.hardware = nil
            state.records[id]!.lostDevice = true
            record.sink.post(.interruptionBegan(reason: .routeDisconnected, by: nil))
        }
    }
}
