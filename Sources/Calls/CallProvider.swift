// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Dispatch
import Foundation
import Locking
import MediaEngine

/// The system's side of calls for one app (CXProvider + what iOS does around it): the app
/// reports calls, the system performs actions through the `ProviderDelegate` on the app's
/// queue, and enforces what apps built on CallKit keep getting wrong:
/// - every action completes exactly once (fulfil, fail, or the system's timeout);
/// - the call's audio session (playAndRecord/voiceChat, priority `.call`) activates after a
///   start or answer action is fulfilled, then `didActivate`; it deactivates when no unheld
///   call is left, then `didDeactivate` — and the engine's device I/O runs only with it;
/// - an incoming call rings (its own mixable session, priority `.ringtone`) until answered
///   or ended, and ends `unanswered` after `timeouts.unanswered`;
/// - answering or starting a call while another is active holds the other (ends it when it
///   cannot hold); a call beyond `maximumCallGroups` is refused (`isBusy`);
/// - hold, mute (one authority, recording who), DTMF and translation reach the call's media.
///
/// ```swift
/// let provider = try CallProvider(configuration: ProviderConfiguration(),
///                                 audio: CallAudioSystem(center: center, media: engine))
/// provider.setDelegate(delegate, queue: .main)
/// try await provider.reportNewIncomingCall(with: uuid, update: CallUpdate(remoteHandle: handle))
/// ```
///
/// Not shown on iOS, ours: `reset()` is what the system does when it resets the provider
/// (providerDidReset); a call refused as busy says so (`IncomingCallError.isBusy`).
public final class CallProvider: Sendable {
    /// What the provider was made with.
    public let configuration: ProviderConfiguration
    /// The call audio session: playAndRecord, voiceChat, priority `.call`.
    public let audioSession: AudioSession
    /// The ringtone's session: playback with mixWithOthers, priority `.ringtone`.
    public let ringtoneSession: AudioSession

    /// The app's delegate and its queue. The delegate is not `Sendable`: it is read only in
    /// blocks on `queue` (`post`), never on the thread that reports or requests.
    final class Delegate: @unchecked Sendable {
        // @unchecked: `delegate` is written once, in `init`, before any block that reads it is
        // queued (DispatchQueue.async orders the two), and only read on `queue` after that.
        private weak var delegate: (any ProviderDelegate)?
        let queue: DispatchQueue

        init(_ delegate: any ProviderDelegate, queue: DispatchQueue) {
            self.delegate = delegate
            self.queue = queue
        }

        /// Runs `body` with the delegate on its queue, unless it was released meanwhile.
        func async(_ body: @escaping @Sendable (any ProviderDelegate) -> Void) {
            queue.async { [self] in
                if let delegate { body(delegate) }
            }
        }
    }

    struct State {
        var calls: [UUID: CallRecord] = [:]
        /// The live calls' UUIDs in the order they began.
        var order: [UUID] = []
        var pending: [UUID: CallAction] = [:]
        var delegate: Delegate?
        var settings: CallSystemSettings
        /// Blocking and identification of callers (a call directory), consulted per report.
        var filter: (any IncomingCallFilter)?
        var isInvalidated = false
        var observers: [Int: @Sendable (ObservedCall) -> Void] = [:]
        var nextObserver = 0
        /// What the system did (tests and diagnostics): actions performed by the system itself.
        var systemActions = 0

        var liveCalls: [CallRecord] { order.compactMap { calls[$0] } }
        var groups: Set<UUID> { Set(calls.values.map(\.group)) }
        var wantsCallAudio: Bool { calls.values.contains { $0.wantsAudio } }
        /// A pending action will give a call the audio (answer, start, resume): an active
        /// session stays up for it, so hold-and-answer and swaps never drop the audio.
        var audioAboutToBeWanted: Bool {
            pending.values.contains { action in
                calls[action.callUUID] != nil
                    && (action is AnswerCallAction || action is StartCallAction || (action as? SetHeldCallAction)?.isOnHold == false)
            }
        }
        var wantsRinging: Bool { calls.values.contains { $0.isRinging } }
    }

    struct AudioState {
        var callActive = false
        var ringing = false
        /// Another session (or a lost device) interrupted the call session: no activation
        /// until the interruption ends, or until no call wants audio any more.
        var interrupted = false
    }

    let state: Locked<State>
    /// Serialises audio transitions (taken before `state`, never inside it).
    let audio = Locked(AudioState())
    let clock: any CallClock
    let engine: (any CallMediaHost)?
    let hasRinger: Bool
    /// Every `reportNewIncomingCall` made, refused ones included (PushRegistry's reporting rule:
    /// a refused report — blocked, busy — still honours the push). Its own lock, taken alone.
    let incomingReports = Locked(IncomingReportLog())
    /// The attached PushRegistry's way in for `reportNewIncomingVoIPPushPayload`.
    let voipPushRoute = Locked<VoIPPushRoute?>(nil)
    /// What records this provider's calls into recents, while the provider lives.
    let recentsRecording = Locked<(any CallRecentsRecording)?>(nil)
    /// The engine observation that follows the calls' media connections, and the queue its
    /// events are handled on (never the engine's thread: ending a call removes its media).
    private let mediaObservation = Locked<Int?>(nil)
    private let mediaConnections = DispatchQueue(label: "Calls.CallProvider.mediaConnections")

    /// A provider with `configuration` over the system `audio`, its timeouts on `clock`.
    /// - Throws: `configuration` when a property of `configuration` set after it was made is
    ///   invalid (`ProviderConfiguration.validate()`); `engineStartsWithoutSession` when `audio.media` could start device I/O
    ///   without the session (a `VoiceEngine` without `requiresAudioSession`: media could
    ///   start before `didActivate`);
    ///   `session` when a session refuses its engine or ringer; `recents` when
    ///   `configuration.includesCallsInRecents` and `audio.recents` cannot be opened.
    public init(configuration: ProviderConfiguration, audio system: CallAudioSystem, clock: any CallClock = SystemCallClock(),
                settings: CallSystemSettings = CallSystemSettings()) throws(CallProviderError) {
        do { try configuration.validate() } catch { throw .configuration(error) }
        self.configuration = configuration
        self.clock = clock
        engine = system.media
        if let engine, !engine.startsOnlyThroughSession { throw .engineStartsWithoutSession }
        state = Locked(State(settings: settings))
        audioSession = system.callSession ?? AudioSession(name: "call", priority: .call, center: system.center)
        ringtoneSession = AudioSession(name: "ringtone", priority: .ringtone, center: system.center)
        hasRinger = system.ringer != nil && configuration.ringtone != nil
        let interruptions = DispatchQueue(label: "Calls.CallProvider.interruptions")
        audioSession.setEventHandler(queue: interruptions) { [weak self] event in self?.callSessionEvent(event) }
        do {
            try audioSession.setCategory(.playAndRecord, mode: .voiceChat)
            try ringtoneSession.setCategory(.playback, options: .mixWithOthers)
            if let io = system.callIO { try audioSession.attach(io) }
            if let ringer = system.ringer { try ringtoneSession.attach(ringer) }
        } catch {
            throw .session(error)
        }
        if let engine {
            let queue = mediaConnections
            let token = engine.observeMediaConnections { [weak self] id, connection in
                guard let provider = self else { return }
                queue.async { provider.mediaConnection(id, connection) }
            }
            mediaObservation.withLock { $0 = token }
        }
        // Last: the recorder observes a provider that is complete.
        if configuration.includesCallsInRecents, let recents = system.recents {
            let recording = try recents.startRecording(self)
            recentsRecording.withLock { $0 = recording }
        }
    }

    deinit {
        if let token = mediaObservation.withLock({ $0 }) { engine?.stopObservingMediaConnections(token) }
    }

    /// The engine said what became of a call's media connection: observers see it; an
    /// outgoing call is connected once its media is (as `reportOutgoingCall(connectedAt:)`,
    /// when the app has not said so yet); a failed connection ends the call as failed, a peer
    /// that closed its DTLS association ends it as ended remotely.
    private func mediaConnection(_ id: EngineCallID, _ connection: MediaConnectionState) {
        let uuid = state.withLock { state -> UUID? in
            guard let uuid = state.calls.first(where: { $0.value.media?.engineID == id })?.key else { return nil }
            state.calls[uuid]!.mediaConnection = connection
            if connection == .connected, state.calls[uuid]!.isOutgoing {
                state.calls[uuid]!.hasStartedConnecting = true
                state.calls[uuid]!.hasConnected = true
            }
            publish(state, state.calls[uuid]!.observed())
            return uuid
        }
        guard let uuid else { return }
        switch connection {
        case .failed: reportCall(with: uuid, endedAt: nil, reason: .failed)
        case .closed: reportCall(with: uuid, endedAt: nil, reason: .remoteEnded)
        case .unknown, .connecting, .connected: break
        }
    }

    // MARK: Delegate

    /// Sets the delegate, called on `queue` (a private serial queue when nil, as CallKit's
    /// main queue would block tests); calls `providerDidBegin` on it.
    public func setDelegate(_ delegate: (any ProviderDelegate)?, queue: DispatchQueue?) {
        state.withLock { state in
            guard let delegate else { state.delegate = nil; return }
            state.delegate = Delegate(delegate, queue: queue ?? DispatchQueue(label: "Calls.ProviderDelegate"))
            post(state) { provider, delegate in delegate.providerDidBegin(provider) }
        }
    }

    /// Queues `body` on the delegate's queue (in order with everything else posted).
    func post(_ state: State, _ body: @escaping @Sendable (CallProvider, any ProviderDelegate) -> Void) {
        state.delegate?.async { [self] delegate in body(self, delegate) }
    }

    /// Tells every observer about `change` (under the state lock, so changes keep their order).
    func publish(_ state: State, _ change: ObservedCall) {
        for sink in state.observers.values { sink(change) }
    }

    // MARK: Reports from the app

    /// Reports a new incoming call: it rings from now on. On error the call must not be
    /// shown; with `isBusy` the app answers its signalling with busy (SIP 486).
    /// - Throws: `callUUIDAlreadyExists`, `filteredByDoNotDisturb`, `filteredByBlockList`,
    ///   `maximumCallGroupsReached`, `providerInvalidated`.
    public func reportNewIncomingCall(with uuid: UUID, update: CallUpdate) throws(IncomingCallError) {
        incomingReports.withLock { $0.append(uuid) }
        // The filter looks up outside the state lock (a directory lookup is a file access).
        let decision = update.remoteHandle.flatMap { handle in
            state.withLock { $0.filter }.map { $0.decision(for: handle) }
        } ?? .allow
        var update = update
        try state.withLock { (state: inout State) throws(IncomingCallError) in
            guard !state.isInvalidated else { throw .providerInvalidated }
            guard state.calls[uuid] == nil else { throw .callUUIDAlreadyExists(uuid) }
            if state.settings.doNotDisturb { throw .filteredByDoNotDisturb }
            if let handle = update.remoteHandle, state.settings.blockList.contains(handle) { throw .filteredByBlockList(handle) }
            switch decision {
            case .allow: break
            case .block: throw .filteredByBlockList(update.remoteHandle!)
            case let .identify(callerName):
                if update.localizedCallerName?.isEmpty ?? true { update.localizedCallerName = callerName }
            }
            guard state.groups.count < configuration.maximumCallGroups else {
                throw .maximumCallGroupsReached(maximum: configuration.maximumCallGroups)
            }
            var record = CallRecord(uuid: uuid, isOutgoing: false, update: update)
            record.unansweredTimer = clock.schedule(after: configuration.timeouts.unanswered) { [weak self] in
                self?.ringTimeElapsed(uuid)
            }
            state.calls[uuid] = record
            state.order.append(uuid)
            publish(state, record.observed())
        }
        reconcileAudio()
    }

    /// The callback form of `reportNewIncomingCall(with:update:)`: `completion` gets nil or
    /// the error, on `queue`.
    public func reportNewIncomingCall(with uuid: UUID, update: CallUpdate, queue: DispatchQueue,
                                      completion: @escaping @Sendable (IncomingCallError?) -> Void) {
        do {
            try reportNewIncomingCall(with: uuid, update: update)
            queue.async { completion(nil) }
        } catch {
            queue.async { completion(error) }
        }
    }

    /// The async form of `reportNewIncomingCall(with:update:)`, for callers that await
    /// CallKit's `reportNewIncomingCall(with:update:) async throws`.
    public func reportNewIncomingCall(with uuid: UUID, update: CallUpdate) async throws(IncomingCallError) {
        let report: () throws(IncomingCallError) -> Void = { () throws(IncomingCallError) in
            try self.reportNewIncomingCall(with: uuid, update: update)
        }
        try report()
    }

    /// Replaces what the system knows of a call (handle, name, capabilities).
    public func reportCall(with uuid: UUID, updated update: CallUpdate) {
        state.withLock { state in
            guard state.calls[uuid] != nil else { return }
            state.calls[uuid]!.update = update
            publish(state, state.calls[uuid]!.observed())
        }
    }

    /// An outgoing call's signalling reached the far end.
    public func reportOutgoingCall(with uuid: UUID, startedConnectingAt _: Date?) {
        state.withLock { state in
            guard let record = state.calls[uuid], record.isOutgoing else { return }
            state.calls[uuid]!.hasStartedConnecting = true
            publish(state, state.calls[uuid]!.observed())
        }
    }

    /// The far end answered an outgoing call.
    public func reportOutgoingCall(with uuid: UUID, connectedAt _: Date?) {
        state.withLock { state in
            guard let record = state.calls[uuid], record.isOutgoing else { return }
            state.calls[uuid]!.hasStartedConnecting = true
            state.calls[uuid]!.hasConnected = true
            publish(state, state.calls[uuid]!.observed())
        }
    }

    /// The call ended for `reason` (the far end hung up, it was answered elsewhere, …): its
    /// pending actions end failed (the app may still `fail()` them; `fulfill()` throws
    /// `callEnded`), and audio follows.
    public func reportCall(with uuid: UUID, endedAt _: Date?, reason: CallEndedReason) {
        let removed = state.withLock { state in end(uuid, reason: reason, &state) }
        finish(removed)
    }

    /// A mute change made outside any action — the far end or the server muted this side, or
    /// the app's own logic: the mute authority records it and the media follows.
    public func reportCall(with uuid: UUID, muted: Bool, by origin: MuteOrigin) {
        state.withLock { state in
            guard state.calls[uuid] != nil else { return }
            setMute(uuid, MuteState(isMuted: muted, changedBy: origin), &state)
        }
    }

    /// Ends every call as failed, tears audio down; the provider refuses everything from now on.
    public func invalidate() {
        let removed = state.withLock { state in
            state.isInvalidated = true
            return endAll(&state)
        }
        finish(removed)
    }

    /// What the system does when it resets the provider: every call ends (failed), every
    /// pending action ends failed, audio is torn down, then `providerDidReset`.
    public func reset() {
        let removed = state.withLock { state in endAll(&state) }
        finish(removed)
        state.withLock { state in post(state) { provider, delegate in delegate.providerDidReset(provider) } }
    }

    /// What blocks or identifies incoming callers (a call directory); nil for nothing.
    public var incomingCallFilter: (any IncomingCallFilter)? {
        get { state.withLock { $0.filter } }
        set { state.withLock { $0.filter = newValue } }
    }

    /// The user's settings for incoming calls.
    public var settings: CallSystemSettings {
        get { state.withLock { $0.settings } }
        set { state.withLock { $0.settings = newValue } }
    }

    // MARK: Media

    /// Binds `media` to call `uuid` and adds it to the engine with `transport`: hold, mute,
    /// DTMF and translation reach it from now on, and it leaves the engine when the call
    /// ends. Call it before the media is in any engine.
    /// - Throws: `unknownCall`, `noEngine`, `mediaAlreadyAdded`, `engine`.
    public func addMedia(_ media: CallMedia, transport: CallTransport, to uuid: UUID) throws(CallProviderError) {
        guard let engine else { throw .noEngine }
        try state.withLock { (state: inout State) throws(CallProviderError) in
            guard let record = state.calls[uuid] else { throw .unknownCall(uuid) }
            guard record.media == nil else { throw .mediaAlreadyAdded(uuid) }
        }
        let id: EngineCallID
        do {
            id = try engine.addCall(media, transport: transport)
        } catch {
            throw .engine(error)
        }
        let added = state.withLock { state -> Bool in
            guard state.calls[uuid] != nil, state.calls[uuid]!.media == nil else { return false }
            let binding = MediaBinding(media: media, engineID: id)
            state.calls[uuid]!.media = binding
            apply(state.calls[uuid]!, to: binding)
            installTranslator(of: uuid, in: binding, &state)
            return true
        }
        if !added {
            try? engine.removeCall(id, sayingGoodbye: true)
            throw .unknownCall(uuid)
        }
    }

    /// Sends the digits a hard-pause PlayDTMF action held back.
    public func continueDTMF(for uuid: UUID) {
        state.withLock { state in
            guard let record = state.calls[uuid] else { return }
            let digits = record.heldDigits
            state.calls[uuid]!.heldDigits = []
            if let media = record.media?.media { Self.send(digits, to: media) }
        }
    }

    // MARK: Observation

    /// The live calls, in the order they began.
    public var liveCalls: [ObservedCall] { state.withLock { $0.liveCalls.map { $0.observed() } } }
    /// The actions performed and not yet completed.
    public var pendingActions: [CallAction] { state.withLock { Array($0.pending.values) } }
    /// Whether the call audio session is active (the system's view).
    public var isCallAudioActive: Bool { audio.withLock { $0.callActive } }
    /// Whether the ringtone plays.
    public var isRinging: Bool { audio.withLock { $0.ringing } }
    /// What records the calls into recents (`CallAudioSystem.recents`), nil when none are kept.
    public var recents: (any CallRecentsRecording)? { recentsRecording.withLock { $0 } }
    /// How many times `reportNewIncomingCall` was called, refused reports included: what
    /// PushRegistry reads before and after a VoIP push's delegate call to see it reported.
    @_spi(PushRegistry) public var incomingCallReportCount: Int { incomingReports.withLock { $0.count } }
    /// The UUIDs of the reports after the first `count` (the most recent 64 at most): under
    /// which UUIDs the app reported a push's call.
    @_spi(PushRegistry) public func incomingCallReports(since count: Int) -> [UUID] {
        incomingReports.withLock { $0.uuids(since: count) }
    }

    func addObserverSink(_ sink: @escaping @Sendable (ObservedCall) -> Void) -> Int {
        state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = sink
            return state.nextObserver
        }
    }

    func removeObserverSink(_ token: Int) {
        state.withLock { _ = $0.observers.removeValue(forKey: token) }
    }
}
