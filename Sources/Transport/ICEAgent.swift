// SPDX-License-Identifier: Apache-2.0
internal import CNice
internal import CNiceShims
internal import Glibc
import Locking
import Synchronization

/// One call's ICE agent (RFC 8445) over libnice: one stream of one component (RTP and RTCP
/// multiplexed, as with DTLS-SRTP), UDP, host, server-reflexive (STUN) and relayed (TURN)
/// candidates, trickle or not, consent freshness (RFC 7675).
///
/// libnice runs on a GLib main context of the agent's own, on a thread of its own; it never
/// touches the audio thread. What arrives — datagrams on the selected pair, candidates, state
/// changes — waits in the agent until taken (`receive`, `takeEvents`), and `onActivity` is
/// called (on the agent's thread) each time something does, so an engine's network thread
/// can wake for it. Every method may be called from any thread (libnice locks its agent; the
/// queues are locked).
public final class ICEAgent: @unchecked Sendable {
    /// How it was made.
    public let configuration: ICEConfiguration
    /// Our `ice-ufrag` and `ice-pwd` for the SDP (new after `restart`).
    public var localCredentials: (usernameFragment: String, password: String) { credentials.withLock { $0 } }
    private let credentials: Locked<(usernameFragment: String, password: String)>

    private let context: OpaquePointer
    private let loop: MainLoop
    private let agent: OpaquePointer
    /// libnice's stream: one, replaced by `restart`.
    private let stream: Atomic<UInt32>
    private var streamID: UInt32 { stream.load(ordering: .acquiring) }
    private let inbox = ICEInbox()
    private let thread: JoinableThread
    private let isClosed = Locked(false)

    /// An agent as `configuration` says, its thread started; gather with `gatherCandidates`.
    /// - Throws: `ICEError.badParameter` for a configuration out of range, `.setupFailed` when
    ///   libnice cannot make the agent or the thread cannot start.
    public init(configuration: ICEConfiguration) throws(ICEError) {
        try configuration.validate()
        self.configuration = configuration
        guard let context = g_main_context_new() else { throw .setupFailed("g_main_context_new failed") }
        var stream: UInt32 = 0
        let inboxPointer = Unmanaged.passUnretained(inbox).toOpaque()
        guard let agent = ve_nice_agent_new(
            context, configuration.role == .controlling ? 1 : 0, configuration.trickle ? 1 : 0, configuration.consentFreshness ? 1 : 0,
            configuration.nomination == .regular ? 1 : 0, configuration.relayOnly ? 1 : 0, inboxPointer,
            { context, kind, state, text, text2 in
                guard let context else { return }
                Unmanaged<ICEInbox>.fromOpaque(context).takeUnretainedValue()
                    .report(kind: kind, state: state, text: text.map { String(cString: $0) }, text2: text2.map { String(cString: $0) })
            },
            { context, bytes, length in
                guard let context, let bytes else { return }
                Unmanaged<ICEInbox>.fromOpaque(context).takeUnretainedValue()
                    .receive(UnsafeRawBufferPointer(start: bytes, count: Int(length)))
            }, &stream)
        else {
            g_main_context_unref(context)
            throw .setupFailed("nice_agent_new_full failed")
        }
        if let stun = configuration.stunServer { ve_nice_agent_set_stun_server(agent, stun.host, UInt32(stun.port)) }
        Self.setRelays(configuration, agent: agent, stream: stream)
        for address in configuration.localAddresses { _ = ve_nice_agent_add_local_address(agent, address) }
        var ufrag = [CChar](repeating: 0, count: 300), password = [CChar](repeating: 0, count: 300)
        guard ve_nice_agent_local_credentials(agent, stream, &ufrag, ufrag.count, &password, password.count) == 1 else {
            Self.release(agent: agent, context: context)
            throw .setupFailed("no local credentials")
        }
        credentials = Locked((Self.string(ufrag), Self.string(password)))
        let loop = MainLoop(context: context)
        guard let thread = JoinableThread.spawn({ loop.run() }) else {
            Self.release(agent: agent, context: context)
            throw .setupFailed("could not start the ICE thread")
        }
        self.context = context
        self.loop = loop
        self.agent = agent
        self.stream = Atomic(stream)
        self.thread = thread
    }

    deinit { close() }

    /// Called on the agent's thread whenever a datagram or an event is waiting.
    public var onActivity: (@Sendable () -> Void)? {
        get { inbox.onActivity }
        set { inbox.onActivity = newValue }
    }

    /// Starts gathering local candidates (`ICEEvent.localCandidate` each, then `.gatheringDone`).
    public func gatherCandidates() throws(ICEError) {
        try checkOpen()
        guard nice_agent_gather_candidates(agent, streamID) != 0 else { throw .setupFailed("nice_agent_gather_candidates failed") }
    }

    /// The peer's `ice-ufrag` and `ice-pwd` (from its SDP).
    /// - Throws: `.badRemoteCredentials` for values outside RFC 8839's lengths and characters.
    public func setRemoteCredentials(usernameFragment: String, password: String) throws(ICEError) {
        try checkOpen()
        guard Self.isICEString(usernameFragment, lengths: 4...256), Self.isICEString(password, lengths: 22...256) else {
            throw .badRemoteCredentials
        }
        guard nice_agent_set_remote_credentials(agent, streamID, usernameFragment, password) != 0 else { throw .badRemoteCredentials }
    }

    /// Adds one of the peer's candidates: the value of its `a=candidate` attribute
    /// ("candidate:…", with or without the prefix).
    /// - Throws: `.malformedCandidate` when it does not parse, `.candidateRefused` for
    ///   RTCP's component (this stream multiplexes RTCP).
    public func addRemoteCandidate(_ attributeValue: String) throws(ICEError) {
        try checkOpen()
        guard attributeValue.utf8.count <= 1_024, !attributeValue.utf8.contains(0) else { throw .malformedCandidate(attributeValue) }
        let value = attributeValue.hasPrefix("candidate:") ? attributeValue : "candidate:" + attributeValue
        // libnice reads numbers with atoi-like leniency (port 99999 wraps): the wire's numbers
        // are checked here first (RFC 8839 §5.1).
        guard Self.hasValidNumbers(String(value.dropFirst("candidate:".count))) else { throw .malformedCandidate(attributeValue) }
        switch ve_nice_agent_add_remote_candidate(agent, streamID, "a=" + value) {
        case 1: return
        case 0: throw .malformedCandidate(attributeValue)
        default: throw .candidateRefused(attributeValue)
        }
    }

    /// The peer has sent all its candidates (`a=end-of-candidates`): checks that fail can now
    /// fail the connection.
    public func remoteCandidatesComplete() {
        guard !isClosed.withLock({ $0 }) else { return }
        _ = nice_agent_peer_candidate_gathering_done(agent, streamID)
    }

    /// Sends a datagram on the selected pair. Returns false when there is none yet (or the
    /// system refused it).
    @discardableResult
    public func send(_ datagram: UnsafeRawBufferPointer) -> Bool {
        guard let base = datagram.baseAddress, !datagram.isEmpty, datagram.count <= 65_535, !isClosed.withLock({ $0 }) else { return false }
        return nice_agent_send(agent, streamID, 1, UInt32(datagram.count), base.assumingMemoryBound(to: CChar.self)) == Int32(datagram.count)
    }

    /// The connection's state as of its latest change (`.idle` before any).
    public var connectionState: ICEConnectionState { inbox.connectionState }

    /// Hands every datagram received since the last call to `body`, oldest first.
    public func receive(_ body: (UnsafeRawBufferPointer) -> Void) { inbox.drainDatagrams(body) }

    /// Every event since the last call, oldest first.
    public func takeEvents() -> [ICEEvent] { inbox.takeEvents() }

    /// An ICE restart (RFC 8445 §9), made by us — after a network change: an address gone or
    /// new, a path that failed — or answering the peer's (its new offer or answer changed
    /// `ice-ufrag`/`ice-pwd`, RFC 8839 §4.4.1.1.1): new local credentials, the peer's
    /// credentials and candidates forgotten, and our candidates gathered anew from the
    /// interfaces there are now (new sockets; TURN allocations made again, the old ones
    /// released): `ICEEvent.localCandidate` each, then `.gatheringDone`, for the new offer or
    /// answer. Give the agent the peer's new credentials and candidates as at the start. Media
    /// waits for a pair again; a DTLS association over the agent lives on (RFC 8842 §4: a
    /// restart does not re-key).
    /// - Throws: `.closed`; `.setupFailed` when libnice cannot make the new stream (the agent
    ///   keeps its old one) or cannot gather on it (restart again, or end the call).
    public func restart() throws(ICEError) {
        try checkOpen()
        let replaced = ve_nice_agent_replace_stream(agent, streamID)
        guard replaced != 0 else { throw .setupFailed("libnice could not make a new stream for the restart") }
        stream.store(replaced, ordering: .releasing)
        Self.setRelays(configuration, agent: agent, stream: replaced)
        var ufrag = [CChar](repeating: 0, count: 300), password = [CChar](repeating: 0, count: 300)
        guard ve_nice_agent_local_credentials(agent, replaced, &ufrag, ufrag.count, &password, password.count) == 1 else {
            throw .setupFailed("no local credentials after the restart")
        }
        credentials.withLock { $0 = (Self.string(ufrag), Self.string(password)) }
        guard nice_agent_gather_candidates(agent, replaced) != 0 else { throw .setupFailed("nice_agent_gather_candidates failed after the restart") }
    }

    /// The TURN servers of `configuration`, for `stream`'s one component.
    private static func setRelays(_ configuration: ICEConfiguration, agent: OpaquePointer, stream: UInt32) {
        for turn in configuration.turnServers {
            _ = nice_agent_set_relay_info(agent, stream, 1, turn.server.host, UInt32(turn.server.port), turn.username, turn.password,
                                          NICE_RELAY_TYPE_TURN_UDP)
        }
    }

    /// Stops the agent's thread and releases libnice's agent. Nothing is received after it.
    public func close() {
        let wasClosed = isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !wasClosed else { return }
        // TURN allocations are released (and consent and refresh timers stopped) on the
        // agent's own thread while its loop still runs; bounded, as a TURN server that has
        // gone cannot hold the call's end.
        let done = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
        done.initialize(to: 0)
        ve_nice_agent_close(agent, done)
        var waitedMs = 0
        while ve_atomic_get(done) == 0 && waitedMs < 2_000 {
            usleep(1_000)
            waitedMs += 1
        }
        loop.stop()
        thread.join()
        Self.release(agent: agent, context: context)
        done.deallocate()
    }

    private func checkOpen() throws(ICEError) {
        if isClosed.withLock({ $0 }) { throw .closed }
    }

    /// Releases what `init` made, in the order libnice needs: no handler may run once the
    /// inbox can go, and the agent goes before its context.
    private static func release(agent: OpaquePointer, context: OpaquePointer) {
        ve_nice_agent_disconnect(agent)
        g_object_unref(UnsafeMutableRawPointer(agent))
        g_main_context_unref(context)
    }

    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether a candidate's fields parse: foundation, component 1…256, transport, priority
    /// 1…2^31−1, an address, port 0…65535, "typ" and a type, and any raddr/rport pairs after.
    private static func hasValidNumbers(_ candidate: String) -> Bool {
        let fields = candidate.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 8, fields.count <= 64, fields[6] == "typ" else { return false }
        func number(_ field: Substring, in range: ClosedRange<UInt64>) -> Bool {
            field.utf8.count <= 10 && field.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && UInt64(field).map(range.contains) == true
        }
        guard number(fields[1], in: 1...256), number(fields[3], in: 1...0x7FFF_FFFF), number(fields[5], in: 0...65_535) else { return false }
        var index = 8
        while index + 1 < fields.count {
            if fields[index] == "rport", !number(fields[index + 1], in: 0...65_535) { return false }
            index += 2
        }
        return true
    }

    /// RFC 8839's ice-char: ALPHA / DIGIT / "+" / "/".
    private static func isICEString(_ text: String, lengths: ClosedRange<Int>) -> Bool {
        lengths.contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2B || byte == 0x2F
        }
    }
}

/// The agent's GLib main context, iterated on its thread until stopped. (Not a GMainLoop: a
/// g_main_loop_quit that comes before g_main_loop_run has started is lost, and the thread
/// would never end; a flag read between iterations cannot be missed.)
private final class MainLoop: @unchecked Sendable {
    let context: OpaquePointer
    private let stopped = Atomic<Bool>(false)

    init(context: OpaquePointer) { self.context = context }

    func run() {
        g_main_context_push_thread_default(context)
        while !stopped.load(ordering: .acquiring) { _ = g_main_context_iteration(context, 1) }
        g_main_context_pop_thread_default(context)
    }

    /// Ends `run` (from any thread): its iteration is woken and it returns.
    func stop() {
        stopped.store(true, ordering: .releasing)
        g_main_context_wakeup(context)
    }
}

/// What the agent's thread hands over: datagrams and events, behind locks.
final class ICEInbox: @unchecked Sendable {
    private let datagrams = Locked<[[UInt8]]>([])
    private let events = Locked<[ICEEvent]>([])
    private let activity = Locked<(@Sendable () -> Void)?>(nil)
    /// The most datagrams kept waiting: a network side that stopped taking them does not
    /// make the agent's memory grow without bound.
    static let maximumWaitingDatagrams = 512
    private let dropped = Locked(0)
    private let latestState = Locked(ICEConnectionState.idle)

    /// The latest state reported.
    var connectionState: ICEConnectionState { latestState.withLock { $0 } }

    var onActivity: (@Sendable () -> Void)? {
        get { activity.withLock { $0 } }
        set { activity.withLock { $0 = newValue } }
    }

    /// Datagrams dropped because too many were waiting.
    var droppedDatagrams: Int { dropped.withLock { $0 } }

    func receive(_ bytes: UnsafeRawBufferPointer) {
        let kept = datagrams.withLock { waiting -> Bool in
            guard waiting.count < Self.maximumWaitingDatagrams else { return false }
            waiting.append(Array(bytes))
            return true
        }
        if !kept { dropped.withLock { $0 += 1 } }
        onActivity?()
    }

    func report(kind: Int32, state: UInt32, text: String?, text2: String?) {
        let event: ICEEvent?
        switch kind {
        case Int32(VE_NICE_LOCAL_CANDIDATE.rawValue): event = text.map(ICEEvent.localCandidate)
        case Int32(VE_NICE_GATHERING_DONE.rawValue): event = .gatheringDone
        case Int32(VE_NICE_STATE_CHANGED.rawValue): event = .stateChanged(Self.state(state))
        case Int32(VE_NICE_SELECTED_PAIR.rawValue): event = .selectedPair(local: text ?? "", remote: text2 ?? "")
        default: event = nil
        }
        guard let event else { return }
        if case let .stateChanged(newState) = event { latestState.withLock { $0 = newState } }
        events.withLock { $0.append(event) }
        onActivity?()
    }

    func drainDatagrams(_ body: (UnsafeRawBufferPointer) -> Void) {
        let waiting = datagrams.withLock { waiting -> [[UInt8]] in
            defer { waiting.removeAll(keepingCapacity: true) }
            return waiting
        }
        for datagram in waiting { datagram.withUnsafeBytes(body) }
    }

    func takeEvents() -> [ICEEvent] {
        events.withLock { waiting in
            defer { waiting.removeAll() }
            return waiting
        }
    }

    private static func state(_ state: UInt32) -> ICEConnectionState {
        switch state {
        case NICE_COMPONENT_STATE_GATHERING.rawValue: return .gathering
        case NICE_COMPONENT_STATE_CONNECTING.rawValue: return .checking
        case NICE_COMPONENT_STATE_CONNECTED.rawValue: return .connected
        case NICE_COMPONENT_STATE_READY.rawValue: return .completed
        case NICE_COMPONENT_STATE_FAILED.rawValue: return .failed
        default: return .idle
        }
    }
}
