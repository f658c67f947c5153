// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import SRTP
import Transport

/// One call's media run in real time on the calling thread, without a sound card: a WAV's
/// samples go out frame by frame on the wall clock, and what arrives is played out of the
/// jitter buffer into a recording. `CallMedia`'s network and audio sides both run here, one
/// frame (20 ms) at a time; between frames the thread waits on the socket.
///
/// Each wake-up (`step()`) sends the frame that is due first, then reads at most
/// `maximumDatagramsPerWakeUp` datagrams: anyone who can reach the port can flood it, and
/// sending never waits behind what arrives. The rest waits for the next wake-up, or the system
/// drops it once the socket's buffer is full.
///
/// A call keyed by DTLS-SRTP runs its handshake here too (`Handshake`, a `DTLSCallKeying`):
/// the DTLS datagrams the call hands back from the peer's address go in, its flights go out on
/// the same socket, and it is polled for retransmissions when due. Until it keys the call no
/// frame is taken from the source (a file is sent whole, not from wherever the handshake
/// ended) and the media give-up counts from the keys, the handshake having its own deadline.
///
/// A call carried by ICE (`call --ice`) runs on an `ICEAgent` instead of a socket: what the
/// agent received is taken at each wake-up, what the call sends goes on the agent's selected
/// pair, and the loop waits on a `SocketPoller` with no socket — its eventfd, which the
/// agent's `onActivity` wakes. Until a pair connects nothing is sent or taken from the source
/// and the handshake waits (its flights need a pair); a connection that fails, or none within
/// `giveUpSeconds`, ends the call as unreachable.
final class RealTimeMediaLoop {
    /// The most datagrams one wake-up reads (a flood's share of one 20 ms frame: well under a
    /// millisecond of SRTP checks).
    static let maximumDatagramsPerWakeUp = 64
    /// Recording kept after the last media packet came, in ms: the audio the jitter buffer
    /// still held then (what it plays after that is concealment).
    static let keptAfterLastMediaMs = 100.0

    /// When the loop ends and what it does.
    struct Plan {
        /// 48 kHz mono to send, or nil to send no audio.
        var source: [Int16]?
        /// 48 kHz mono to send streamed from its file (`--input`), instead of `source`.
        var input: RealCallInput?
        /// Whether to play out what arrives (and count it as received).
        var records = false
        /// Where what is played out goes (streamed to its file), from the first authenticated
        /// packet on.
        var recording: RealCallRecording?
        /// Ends this long after the first authenticated packet (receive) or the start (send, call).
        var maximumSeconds: Double?
        /// Ends once the source is sent (plus a moment for the last packets) and, when
        /// recording, the peer has stopped sending for 2 s.
        var endsWhenSourceEnds = false
        /// Ends when media, once it flowed, stops for this long.
        var endsAfterPeerSilenceSeconds: Double?
        /// Whether media must arrive within `giveUpSeconds` of the start.
        var expectsMedia = false
        /// How long refusals (or, with `expectsMedia`, silence) last before giving up.
        var giveUpSeconds = 10.0
        /// With no `remote`, RTCP goes back to where the latest authenticated RTP came from
        /// (symmetric RTP, RFC 4961): a receive-only leg still tells the sender its loss and
        /// jitter, which the sender's FEC and bitrate plans live on.
        var repliesToSender = false
        /// Takes a status line about the path (ICE connected, its pair).
        var say: (String) -> Void = { _ in }
    }

    /// What carries the call's datagrams.
    enum Path {
        /// A UDP socket, to `remote` (or the sender).
        case socket(UDPSocket)
        /// An ICE agent's selected pair; `waker` is woken by its `onActivity`.
        case ice(ICEAgent, waker: SocketPoller)
    }

    /// A DTLS-SRTP handshake that keys the loop's call.
    struct Handshake {
        /// The handshake, made for the call (not started: the loop starts it).
        var keying: DTLSCallKeying
        /// The peer's address from its SDP: only its DTLS datagrams reach the handshake, and
        /// the flights go there.
        var peer: PeerAddress
        /// Takes a status line: the handshake connected, or the peer closed it.
        var say: (String) -> Void = { _ in }
    }

    /// What the loop did.
    struct Outcome {
        /// The call's statistics at the end.
        var statistics: CallMediaStatistics
        /// RTP datagrams put on the wire, and their bytes: what `sent N packets` reports
        /// (packets the encoder made but SRTP refused to protect never count).
        var rtpSent = 0
        var rtpBytesSent = 0
        /// What ended the call once its recording is written and its figures reported: a
        /// master key that reached its lifetime (`SRTPRefusals.keyExpired`).
        var failure: RealCallFailure?
        /// RTP and RTCP datagrams sent, and datagrams of ours refused by the peer's host (ICMP
        /// errors that quote one of them).
        var sent = 0
        var refused = 0
        /// DTLS handshake datagrams sent (flights, retransmissions, alerts, close_notify).
        var handshakeSent = 0
        /// ICMP errors that quote nothing we sent: forged, counted and otherwise ignored.
        var forgedRefusals = 0
        /// Wake-ups that read `maximumDatagramsPerWakeUp` datagrams: a flood, read in bounded bites.
        var wakeUpsAtReadLimit = 0
        /// Seconds of media received.
        var receivedSeconds: Double { Double(recordingFrames) * 0.02 }
        /// Frames played out from the first authenticated packet on (the recording's length,
        /// its concealed tail cut).
        var recordingFrames = 0
    }

    private let media: CallMedia
    private let path: Path
    private let remote: PeerAddress?
    /// The sender's address, learnt from its authenticated RTP (`Plan.repliesToSender`).
    private var sender: PeerAddress?
    private let plan: Plan
    /// Milliseconds: the monotonic clock, or a test's virtual one.
    private let clock: () -> Double
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)
    private var frame: [Int16]
    private var outcome: Outcome
    private let start: Double
    private var nextFrame: Double
    private var sourcePosition = 0
    private var sourceEndedAt: Double?
    private var firstMedia: Double?
    private var lastMedia: Double?
    /// Frames recorded when the last authenticated media packet came.
    private var recordingFramesAtLastMedia = 0
    private var reachability: PeerReachability
    private var recentlySent = RecentDatagrams()
    private let handshake: Handshake?
    /// When the handshake keyed the call, and the suite it chose.
    private var keyedAt: Double?
    private var handshakeProfile: SRTPProfile?
    /// When the peer closed the association (close_notify).
    private var peerClosedAt: Double?
    private var handshakeClosed = false
    /// Whether the handshake has started (over ICE it waits for a pair).
    private var handshakeStarted = false
    /// With ICE: when a pair first connected.
    private var pathConnectedAt: Double?

    /// A loop for `media` on `socket`, sending to `remote` (nil: send nothing), its first frame
    /// due at once on `clock` (milliseconds; the monotonic clock unless a test gives another),
    /// or, with `handshake`, once that has keyed the call (started here).
    convenience init(media: CallMedia, socket: UDPSocket, remote: PeerAddress?, plan: Plan, handshake: Handshake? = nil,
                     clock: @escaping () -> Double = RealTimeMediaLoop.nowMs) {
        self.init(media: media, path: .socket(socket), remote: remote, plan: plan, handshake: handshake, clock: clock)
    }

    /// A loop for `media` carried by `agent` (gathered, given the peer's side): frames, and
    /// with `handshake` its flights (`handshake.peer` only names the peer in messages: libnice
    /// takes datagrams from the peer's candidates alone), once a pair connects.
    /// - Throws: `.failed` when the eventfd the agent wakes cannot be made.
    convenience init(media: CallMedia, ice agent: ICEAgent, plan: Plan, handshake: Handshake? = nil) throws(RealCallFailure) {
        let waker: SocketPoller
        do {
            waker = try SocketPoller(capacity: 0)
        } catch {
            throw .failed("\(error)")
        }
        agent.onActivity = { [waker] in waker.wake() }
        self.init(media: media, path: .ice(agent, waker: waker), remote: nil, plan: plan, handshake: handshake, clock: RealTimeMediaLoop.nowMs)
    }

    private init(media: CallMedia, path: Path, remote: PeerAddress?, plan: Plan, handshake: Handshake?,
                 clock: @escaping () -> Double) {
        self.media = media
        self.path = path
        self.remote = remote
        self.plan = plan
        self.handshake = handshake
        self.clock = clock
        frame = [Int16](repeating: 0, count: media.samplesPerFrame)
        outcome = Outcome(statistics: media.statistics)
        start = clock()
        nextFrame = start
        reachability = PeerReachability(giveUpMs: plan.giveUpSeconds * 1_000)
        // A client's first flight waits in the association until the first step sends it;
        // over ICE, until a pair connects.
        if case .socket = path, let handshake {
            handshake.keying.start(nowMs: start)
            handshakeStarted = true
        }
    }

    /// Whether a handshake still has to key the call.
    private var awaitsKeys: Bool { handshake != nil && keyedAt == nil }

    /// Whether ICE still has to connect a pair.
    private var awaitsPath: Bool {
        if case .ice = path { return pathConnectedAt == nil }
        return false
    }

    deinit {
        if case let .ice(agent, _) = path { agent.onActivity = nil }
        buffer.deallocate()
    }

    /// Milliseconds on the monotonic clock.
    static func nowMs() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e6 }

    /// What one wake-up did.
    struct Step: Equatable {
        /// Whether the frame that was due was sent (and played).
        var sentFrame = false
        /// Datagrams read, at most `maximumDatagramsPerWakeUp`.
        var datagramsRead = 0
        /// Whether the plan says the call is over.
        var ended = false
        /// How long to wait on the socket before the next wake-up.
        var waitMs = 0
    }

    /// Runs until the plan says the call is over, or `stop()` returns true (e.g. after SIGINT).
    func run(stop: () -> Bool = { false }) throws(RealCallFailure) -> Outcome {
        // However the call ends, the peer's association ends with ours (close_notify).
        defer { closeHandshake() }
        while !stop() {
            let step = try step()
            if step.ended { break }
            do {
                switch path {
                case let .socket(socket): _ = try socket.waitForData(timeoutMs: step.waitMs)
                case let .ice(_, waker): try waker.wait(timeoutMs: step.waitMs) { _ in }
                }
            } catch {
                throw .failed("receiving: \(error)")
            }
        }
        return finish()
    }

    /// One wake-up: the refusals queued, the handshake's retransmissions when due, the frame
    /// that is due (sent and played; none before the handshake keys the call), then at most
    /// `maximumDatagramsPerWakeUp` datagrams read; then whether the call is over.
    func step() throws(RealCallFailure) -> Step {
        var step = Step()
        var now = clock()
        takeRefusals(atMs: now)
        if case let .ice(agent, _) = path { try follow(agent, atMs: now) }
        if let handshake, awaitsKeys, handshakeStarted {
            try handle(handshake.keying.poll(nowMs: now), atMs: now)
        }
        if now >= nextFrame && !awaitsKeys && !awaitsPath {
            try sendFrame(atMs: now)
            step.sentFrame = true
        }
        step.datagramsRead = try receive(atMs: now)
        if step.datagramsRead == Self.maximumDatagramsPerWakeUp { outcome.wakeUpsAtReadLimit += 1 }
        step.ended = try isOver(atMs: now)
        now = clock()
        // Until keyed, the next thing due is the handshake's (a retransmission, its deadline),
        // looked at no less often than a frame would be.
        var due = nextFrame
        if awaitsKeys || awaitsPath {
            due = min(now + Double(media.frameDurationMs),
                      (handshakeStarted ? handshake?.keying.nextWakeUpMs(nowMs: now) : nil) ?? .infinity)
        }
        // More may be waiting after a full bite: no wait, but the next frame still comes first.
        step.waitMs = step.datagramsRead == Self.maximumDatagramsPerWakeUp ? 0 : max(0, Int((due - now).rounded(.up)))
        return step
    }

    /// The outcome once the loop ends (the handshake closed: a close_notify to the peer).
    func finish() -> Outcome {
        closeHandshake()
        let frameMs = Double(media.frameDurationMs)
        // The recording's tail after the last packet is the jitter buffer's concealment: cut it,
        // keeping 100 ms for the audio the buffer still held when that packet came. Counted in
        // frames played since, not in time since: a process held back (a loaded machine) plays
        // fewer frames than the clock moved, and the clock's difference cut speech it had played.
        if plan.records, lastMedia != nil {
            let framesSinceLastMedia = outcome.recordingFrames - recordingFramesAtLastMedia
            outcome.recordingFrames -= max(0, framesSinceLastMedia - Int((Self.keptAfterLastMediaMs / frameMs).rounded(.up)))
        }
        outcome.statistics = media.statistics
        return outcome
    }

    /// Notes an authenticated media packet received at `now`.
    private func noteMedia(atMs now: Double) {
        if firstMedia == nil { firstMedia = now }
        lastMedia = now
        recordingFramesAtLastMedia = outcome.recordingFrames
    }

    /// Takes the ICMP errors queued: those quoting a datagram we sent are refusals, the rest forged.
    /// (Over ICE, consent freshness stands for them: libnice reads its sockets' errors.)
    private func takeRefusals(atMs now: Double) {
        guard case let .socket(socket) = path else { return }
        let refusals = socket.takeRefusals { recentlySent.contains(quote: $0) }
        outcome.refused += refusals.recognised
        outcome.forgedRefusals += refusals.unrecognised
        reachability.noteRefusals(refusals.recognised, atMs: now)
    }

    /// Sends the frame due at `nextFrame` (and its RTCP), plays the next one, advances.
    private func sendFrame(atMs now: Double) throws(RealCallFailure) {
        let samplesPerFrame = media.samplesPerFrame
        let mediaTime = nextFrame - start
        if let source = plan.source {
            if sourcePosition < source.count {
                let count = min(samplesPerFrame, source.count - sourcePosition)
                for index in 0..<samplesPerFrame { frame[index] = index < count ? source[sourcePosition + index] : 0 }
                sourcePosition += samplesPerFrame
                frame.withUnsafeBufferPointer { media.send(microphone: $0) }
            } else if sourceEndedAt == nil {
                sourceEndedAt = now
            }
        } else if let input = plan.input, sourceEndedAt == nil {
            if let count = frame.withUnsafeMutableBufferPointer({ input.read(into: $0) }) {
                for index in count..<samplesPerFrame { frame[index] = 0 }
                frame.withUnsafeBufferPointer { media.send(microphone: $0) }
            } else {
                sourceEndedAt = now
            }
        }
        if case let .ice(agent, _) = path {
            media.sendDatagrams(nowMs: mediaTime) { datagram in
                // No pair (it is being replaced) or the system refused: lost, as on a network.
                if agent.send(datagram) { count(datagram, isHandshake: false) }
            }
        } else if let destination = remote ?? sender {
            var sendFailure: String?
            media.sendDatagrams(nowMs: mediaTime) { datagram in
                guard sendFailure == nil else { return }
                do {
                    try send(datagram, to: destination, atMs: now)
                } catch {
                    sendFailure = "\(error)"
                }
            }
            if let sendFailure { throw .failed("sending to \(destination): \(sendFailure)") }
        }
        if plan.records {
            frame.withUnsafeMutableBufferPointer { _ = media.render(into: $0, nowMs: mediaTime) }
            if firstMedia != nil {
                frame.withUnsafeBufferPointer { plan.recording?.append($0) }
                outcome.recordingFrames += 1
            }
        }
        nextFrame += Double(media.frameDurationMs)
        // A machine that fell behind (a stalled process) does not try to catch up in a burst.
        if now - nextFrame > 200 { nextFrame = now }
    }

    /// What became of the handshake: its datagrams for the peer sent first (an alert must
    /// reach the peer even when the failure ends the call here), then the call keyed, the
    /// peer's close noted, or the failure thrown — or, once media flowed, kept as the call's
    /// failure so that what was recorded is still written.
    private func handle(_ event: DTLSCallKeying.Event?, atMs now: Double) throws(RealCallFailure) {
        guard let handshake else { return }
        if let failure = sendFlights(of: handshake, atMs: now) { throw .failed("sending the DTLS handshake to \(handshake.peer): \(failure)") }
        switch event {
        case nil:
            break
        case let .connected(profile, peerFingerprint):
            keyedAt = now
            handshakeProfile = profile
            // The first frame goes at once: the source starts here, not where the handshake began.
            nextFrame = now
            // The peer proved it holds the certificate its SDP named: it is there.
            reachability.noteAuthenticated(atMs: now)
            handshake.say(RealCallDTLS.connected(profile: profile, peerFingerprint: peerFingerprint))
        case let .failed(error):
            let failure = RealCallDTLS.failure(error, peer: "\(handshake.peer)", keyed: keyedAt != nil)
            guard keyedAt != nil else { throw failure }
            outcome.failure = failure
        case .closed:
            peerClosedAt = now
            handshake.say(RealCallDTLS.closed)
        }
    }

    /// Sends what the association has for the peer; the first send error, if any.
    private func sendFlights(of handshake: Handshake, atMs now: Double) -> SocketError? {
        var failure: SocketError?
        handshake.keying.drainDatagrams { datagram in
            guard failure == nil else { return }
            datagram.withUnsafeBytes { bytes in
                do throws(SocketError) {
                    try send(bytes, to: handshake.peer, atMs: now, isHandshake: true)
                } catch {
                    failure = error
                }
            }
        }
        return failure
    }

    /// Ends our association once (its close_notify to the peer, best effort: the call is over).
    private func closeHandshake() {
        guard let handshake, handshakeStarted, !handshakeClosed else { return }
        handshakeClosed = true
        handshake.keying.close()
        _ = sendFlights(of: handshake, atMs: clock())
    }

    /// Sends one datagram. A send the system fails with "refused" was not sent: an ICMP error
    /// came since the last look (it is counted from the error queue, where it says whether it
    /// quotes one of ours); this datagram goes once more.
    private func send(_ datagram: UnsafeRawBufferPointer, to remote: PeerAddress, atMs now: Double, isHandshake: Bool = false) throws(SocketError) {
        let socket: UDPSocket
        switch path {
        case let .socket(pathSocket): socket = pathSocket
        case let .ice(agent, _):
            if agent.send(datagram) { count(datagram, isHandshake: isHandshake) }
            return
        }
        for _ in 0..<2 {
            switch try socket.sendNoticingRefusal(datagram, to: remote) {
            case .sent:
                recentlySent.note(datagram)
                count(datagram, isHandshake: isHandshake)
                return
            case .dropped:
                return
            case .refused:
                takeRefusals(atMs: now)
            }
        }
    }

    /// Counts a datagram put on the wire.
    private func count(_ datagram: UnsafeRawBufferPointer, isHandshake: Bool) {
        if isHandshake {
            outcome.handshakeSent += 1
            return
        }
        outcome.sent += 1
        if !CallMedia.isRTCP(datagram) {
            outcome.rtpSent += 1
            outcome.rtpBytesSent += datagram.count
        }
    }

    /// Reads at most `maximumDatagramsPerWakeUp` datagrams into the call; returns how many.
    private func receive(atMs now: Double) throws(RealCallFailure) -> Int {
        let socket: UDPSocket
        switch path {
        case let .socket(pathSocket): socket = pathSocket
        case let .ice(agent, _): return try receive(from: agent, atMs: now)
        }
        var read = 0
        while read < Self.maximumDatagramsPerWakeUp {
            let received: ReceivedDatagram?
            do {
                received = try socket.receive(into: buffer)
            } catch {
                throw .failed("receiving: \(error)")
            }
            guard let datagram = received else { break }
            read += 1
            guard datagram.length <= buffer.count else { continue }
            let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<datagram.length])
            let disposition = media.receiveDatagram(bytes, arrivalTimeMs: now - start)
            // The call hands DTLS back unread (RFC 7983): the handshake takes the peer's.
            if let handshake, DTLSCallKeying.takes(disposition, from: datagram.source, peer: handshake.peer) {
                try handle(handshake.keying.receive(UnsafeRawBufferPointer(bytes), nowMs: now), atMs: now)
                continue
            }
            // RTCP too proves the peer is there: a receive-only peer sends nothing else.
            if disposition.isAuthenticated { reachability.noteAuthenticated(atMs: now) }
            // RTP only: RTCP keeps coming after the peer's speech has ended.
            if case .media(authenticated: true) = disposition {
                noteMedia(atMs: now)
                // Only authenticated media moves the reply address: a forged datagram cannot.
                if remote == nil && plan.repliesToSender { sender = datagram.source }
            }
        }
        return read
    }

    /// Takes what `agent` received (all of it: its inbox holds at most
    /// `ICEInbox.maximumWaitingDatagrams`, a bounded bite). DTLS goes to the handshake whatever
    /// its source: libnice passes on only what comes from the peer's candidates on the pair's
    /// checks, so there is no address to compare. Returns how many were taken.
    private func receive(from agent: ICEAgent, atMs now: Double) throws(RealCallFailure) -> Int {
        var read = 0
        var failure: RealCallFailure?
        agent.receive { bytes in
            read += 1
            guard failure == nil, bytes.count <= buffer.count else { return }
            let copy = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<bytes.count])
            copy.copyMemory(from: bytes)
            let disposition = media.receiveDatagram(copy, arrivalTimeMs: now - start)
            if disposition == .multiplexed(.dtls) {
                guard let handshake, handshakeStarted else { return }
                do throws(RealCallFailure) {
                    try handle(handshake.keying.receive(UnsafeRawBufferPointer(copy), nowMs: now), atMs: now)
                } catch {
                    failure = error
                }
                return
            }
            if disposition.isAuthenticated { reachability.noteAuthenticated(atMs: now) }
            if case .media(authenticated: true) = disposition {
                noteMedia(atMs: now)
            }
        }
        if let failure { throw failure }
        return read
    }

    /// Follows the agent: the pair connecting (frames start, and the handshake), the pair it
    /// selected (said), a connection that failed or never came within the give-up time.
    private func follow(_ agent: ICEAgent, atMs now: Double) throws(RealCallFailure) {
        for event in agent.takeEvents() {
            if case let .selectedPair(local, remote) = event { plan.say("ICE: selected pair \(local) ⇄ \(remote)") }
        }
        let state = agent.connectionState
        if pathConnectedAt == nil, state == .connected || state == .completed {
            pathConnectedAt = now
            nextFrame = now
            plan.say("ICE connected" + (handshake == nil ? "" : "; the DTLS-SRTP handshake starts"))
            if let handshake {
                handshake.keying.start(nowMs: now)
                handshakeStarted = true
                try handle(nil, atMs: now)
            }
        }
        if state == .failed {
            let failure = RealCallICE.failed(connected: pathConnectedAt != nil)
            // Once media flowed, what was recorded is still written.
            guard firstMedia != nil else { throw failure }
            if outcome.failure == nil { outcome.failure = failure }
        }
        if pathConnectedAt == nil, now - start >= plan.giveUpSeconds * 1_000 { throw RealCallICE.timedOut(plan.giveUpSeconds) }
    }

    /// Why a peer at a private address may never be heard from, when we send to one: a NAT in
    /// front of it lets nothing in that it did not ask for.
    private var natHint: String {
        guard let remote, remote.scope == .privateNetwork else { return "" }
        return "; \(remote.endpoint.host) is a private address, which nothing outside its own network reaches:"
            + " behind a NAT, run both sides with --ice (and --stun or --turn)"
    }

    /// Whether the plan says the call is over at `now`; throws when the peer is unreachable.
    private func isOver(atMs now: Double) throws(RealCallFailure) -> Bool {
        // A failure kept for after the recording (the association failed once media flowed).
        if outcome.failure != nil { return true }
        let giveUpMs = plan.giveUpSeconds * 1_000
        if reachability.isUnreachable(atMs: now) {
            throw .unreachable("\(remote.map { "\($0)" } ?? "the peer") refused every packet (ICMP port, host or network unreachable) for \(Self.seconds(plan.giveUpSeconds)) and sent nothing that authenticates; is the other side running and listening there?" + natHint)
        }
        // A key that ran out ends the call: nothing more can be sent, or nothing the peer sends
        // is accepted (voicecall does not re-key).
        let srtp = media.statistics.transport
        if srtp.srtp.sendingKeyLifetimeExpired > 0 || srtp.srtp.keyLifetimeExpired > 0 {
            outcome.failure = .failed(SRTPRefusals.keyExpired(srtp.srtp.sendingKeyLifetimeExpired > 0 ? .outbound : .inbound,
                                                              profile: handshakeProfile ?? media.configuration.srtpProfile, transport: srtp))
            return true
        }
        if let input = plan.input, input.hasFailed { throw .file(input.failureDescription) }
        if let recording = plan.recording, recording.hasFailed { throw .file("cannot write --output \(recording.path); the call ended there") }
        // With a handshake, media is waited for from the keys on (the handshake has its own
        // deadline, the same --give-up): a slow handshake does not eat the media's time.
        if plan.expectsMedia, firstMedia == nil, !awaitsKeys, !awaitsPath, now - (keyedAt ?? pathConnectedAt ?? start) >= giveUpMs {
            throw .unreachable("no SRTP packet that authenticates arrived in \(Self.seconds(plan.giveUpSeconds))"
                + (keyedAt == nil ? "" : " after the DTLS-SRTP handshake")
                + " on \(localDescription) (\(Self.arrivals(media.statistics.transport))); check the address, the port, the key and the firewall"
                + natHint)
        }
        // The peer hung up (close_notify): over, after a moment for what the jitter buffer
        // still holds to play out into the recording.
        if let closed = peerClosedAt, now - closed >= (plan.records ? 500 : 0) { return true }
        if let maximum = plan.maximumSeconds, now - (plan.expectsMedia && plan.source == nil && plan.input == nil ? (firstMedia ?? now) : start) >= maximum * 1_000 { return true }
        // A call that also records ends once the peer has stopped too (2 s without media).
        if let ended = sourceEndedAt, plan.endsWhenSourceEnds, now - ended >= 200,
           !plan.records || lastMedia.map({ now - $0 >= 2_000 }) == true { return true }
        if let silence = plan.endsAfterPeerSilenceSeconds, let last = lastMedia, now - last >= silence * 1_000 { return true }
        return false
    }

    /// Where we receive, for messages.
    private var localDescription: String {
        switch path {
        case let .socket(socket): return "\(socket.localEndpoint)"
        case .ice: return "the ICE pair"
        }
    }

    /// What did arrive, to tell a wrong key from a wrong address.
    private static func arrivals(_ transport: CallTransportStatistics) -> String {
        let srtp = transport.srtp
        guard transport.datagramsReceived > 0 else { return "no datagram at all" }
        return "\(transport.datagramsReceived) datagrams, \(SRTPRefusals.summary(srtp))"
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
