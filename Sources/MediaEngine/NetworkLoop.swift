// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Locking
import SRTP
import Synchronization
import Transport

/// A call's DTLS keying on its way from the control side (which made it) to the network
/// thread (which alone uses it from then on).
struct DTLSKeyingHandoff: @unchecked Sendable {
    let keying: DTLSCallKeying
}

/// The engine's network thread: one `poll` over every call's sockets (and a waker), each
/// datagram stamped on the engine clock and handed to its call's network side (SRTP, RTCP,
/// reception accounting), then every call's queued packets protected and sent, RTCP when due,
/// and every call's events forwarded to the application. Symmetric RTP latches a call's
/// remote address from authenticated packets only. SRTP lives here because libsrtp2 with NSS
/// allocates per packet: this thread may allocate, lock and wait; the audio thread may not.
///
/// It wakes for datagrams, for the control side and for every frame the audio thread queued
/// (`wake`: `AudioCycle`'s uplink waker), and at least every 20 ms (RTCP's timing needs no
/// finer) or when a DTLS handshake's next step is due.
///
/// A flood (anyone who can reach a port can send to it) is read in bounded bites: at most
/// `maximumDatagramsPerWakeUp` datagrams per socket per wake-up, then every call's queued
/// packets go out; the rest waits for the next wake-up, or the system drops it once the
/// socket's buffer is full. Every datagram read is counted in its call's transport statistics.
final class NetworkLoop: @unchecked Sendable {
    /// The most datagrams one wake-up reads from one socket before sending (a flood's share of
    /// a frame: about a quarter of a millisecond of SRTP checks).
    static let maximumDatagramsPerWakeUp = 256

    /// A call as the network thread holds it.
    private struct Entry {
        let id: EngineCallID
        let media: CallMedia
        let transport: CallTransport
        var tokens: [SocketPoller.Token]
        /// The DTLS handshake keying the call's SRTP, when one does.
        let dtls: DTLSCallKeying?
        /// With ICE: whether the DTLS handshake has started (it waits for a connected pair).
        var handshakeStarted = false
        /// With ICE: the state last posted.
        var iceState = ICEConnectionState.idle
    }

    /// A change for the network thread.
    enum Command {
        case add(EngineCallID, CallMedia, CallTransport, DTLSKeyingHandoff?)
        /// Removes the call, after a BYE when `bye`.
        case remove(EngineCallID, bye: Bool)
    }

    private let poller: SocketPoller
    private let clock: EngineClock
    private let policy: SymmetricRTPPolicy
    private let pending = Locked<[Command]>([])
    private var entries: [Entry] = []
    private let post: @Sendable (VoiceEngineEvent) -> Void
    /// Cleared to stop the thread.
    let running = Atomic<Bool>(true)
    /// Set from the audio thread when the device is lost; the engine acts on it here.
    let deviceLost = Atomic<Bool>(false)
    /// Whatever else the loop should do each round on this thread (release removed calls,
    /// handle a lost device), given by the engine.
    var housekeeping: (@Sendable () -> Void)?

    init(poller: SocketPoller, clock: EngineClock, policy: SymmetricRTPPolicy, post: @escaping @Sendable (VoiceEngineEvent) -> Void) {
        self.poller = poller
        self.clock = clock
        self.policy = policy
        self.post = post
    }

    /// Queues a change for the thread and wakes it (any thread).
    func enqueue(_ command: Command) {
        pending.withLock { $0.append(command) }
        poller.wake()
    }

    /// Wakes the thread (any thread; the audio thread after queueing a frame). Never blocks.
    func wake() { poller.wake() }

    /// The thread's body: runs until `running` is cleared.
    func run() {
        while running.load(ordering: .acquiring) {
            turn(timeoutMs: nextTimeoutMs())
        }
        applyCommands()
        entries.removeAll()
    }

    /// One wake-up: waits up to `timeoutMs` for datagrams, reads at most
    /// `maximumDatagramsPerWakeUp` from each ready socket, applies queued commands, then sends
    /// every call's queued packets and forwards its events — never later than a bounded bite
    /// of what arrived.
    func turn(timeoutMs: Int) {
        do {
            try poller.wait(timeoutMs: timeoutMs) { socket in receive(from: socket) }
        } catch {
            // poll itself failed (EBADF, ENOMEM): nothing a call did; try again after a pause.
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 10_000_000)
        }
        applyCommands()
        for index in entries.indices where entries[index].transport.ice != nil { receiveFromICE(index) }
        let nowMs = clock.milliseconds
        for entry in entries where entry.dtls != nil { pollHandshake(entry, nowMs: nowMs) }
        for entry in entries { send(entry, nowMs: nowMs) }
        for entry in entries {
            let id = entry.id
            entry.media.drainEvents { post(.call(id, $0)) }
        }
        housekeeping?()
    }

    /// How long to wait: 20 ms (RTCP's timing needs no finer; frames wake the thread), or until
    /// the first DTLS retransmission or deadline is due.
    private func nextTimeoutMs() -> Int {
        let nowMs = clock.milliseconds
        var timeout = 20
        for entry in entries {
            guard let wakeUp = entry.dtls?.nextWakeUpMs(nowMs: nowMs) else { continue }
            timeout = min(timeout, max(0, Int((wakeUp - nowMs).rounded(.up))))
        }
        return timeout
    }

    private func applyCommands() {
        let commands = pending.withLock { queued -> [Command] in
            defer { queued.removeAll(keepingCapacity: true) }
            return queued
        }
        for command in commands {
            switch command {
            case let .add(id, media, transport, handoff):
                var tokens: [SocketPoller.Token] = []
                for socket in [transport.rtp, transport.rtcp].compactMap({ $0 }) {
                    do {
                        tokens.append(try poller.add(socket))
                    } catch {
                        post(.socketFailed(id, error))
                    }
                }
                var entry = Entry(id: id, media: media, transport: transport, tokens: tokens, dtls: handoff?.keying)
                if let ice = transport.ice {
                    let poller = self.poller
                    ice.onActivity = { poller.wake() }
                }
                // Over ICE the handshake waits for a pair to send on (`receiveFromICE`).
                if let association = entry.dtls, transport.ice == nil {
                    association.start(nowMs: clock.milliseconds)
                    entry.handshakeStarted = true
                    sendHandshake(entry, association)
                }
                entries.append(entry)
            case let .remove(id, bye):
                guard let index = entries.firstIndex(where: { $0.id == id }) else { continue }
                if bye { sendBye(entries[index]) }
                if let association = entries[index].dtls {
                    // close_notify: the peer's association ends with ours.
                    association.close()
                    sendHandshake(entries[index], association)
                }
                for token in entries[index].tokens { _ = poller.remove(token) }
                entries[index].transport.ice?.onActivity = nil
                entries.remove(at: index)
            }
        }
    }

    /// Every datagram waiting on `socket`, to its call.
    private func receive(from socket: UDPSocket) {
        guard let index = entries.firstIndex(where: { $0.transport.rtp === socket || $0.transport.rtcp === socket }) else { return }
        let entry = entries[index]
        var received = 0
        while received < Self.maximumDatagramsPerWakeUp {
            // Read straight into the call's receive queue: an RTP packet is never copied on
            // its way to the audio side.
            var source: PeerAddress?
            var read = UnsafeRawBufferPointer(start: nil, count: 0)
            let disposition: ReceivedDatagramDisposition?
            do throws(SocketError) {
                disposition = try entry.media.receiveDatagram { buffer throws(SocketError) in
                    guard let datagram = try socket.receive(into: buffer) else { return nil }
                    source = datagram.source
                    read = UnsafeRawBufferPointer(rebasing: buffer[0..<min(datagram.length, buffer.count)])
                    return (datagram.length, clock.milliseconds)
                }
            } catch {
                post(.socketFailed(entry.id, error))
                return
            }
            guard let disposition, let source else { return }
            received += 1
            // A DTLS datagram stays where it was read (the call did not take it) until the
            // next read: the association takes it now. Only from the peer's address: anyone
            // who can reach the port could otherwise talk to the handshake.
            if let association = entry.dtls, socket === entry.transport.rtp,
               DTLSCallKeying.takes(disposition, from: source, peer: socket.remote) {
                report(association.receive(read, nowMs: clock.milliseconds), of: entry)
                sendHandshake(entry, association)
            }
            latch(entry, socket: socket, source: source, disposition: disposition)
        }
    }

    /// What the call's ICE agent received since the last turn: datagrams to the call (DTLS to
    /// its handshake: libnice takes only what comes from the peer's candidates), its state
    /// change posted, and the DTLS handshake started once a pair connects.
    private func receiveFromICE(_ index: Int) {
        let entry = entries[index]
        guard let ice = entry.transport.ice else { return }
        let state = ice.connectionState
        if state != entry.iceState {
            entries[index].iceState = state
            post(.iceStateChanged(entry.id, state))
        }
        if Self.isConnected(state), !entry.handshakeStarted, let association = entry.dtls {
            association.start(nowMs: clock.milliseconds)
            entries[index].handshakeStarted = true
            sendHandshake(entry, association)
        }
        var received = 0
        ice.receive { bytes in
            received += 1
            // Copied into the call's queue as a socket's datagram would be read into it.
            let disposition = try? entry.media.receiveDatagram { (buffer: UnsafeMutableRawBufferPointer) throws(SocketError) in
                let length = min(bytes.count, buffer.count)
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
                return (bytes.count, clock.milliseconds)
            }
            if disposition == .multiplexed(.dtls), let association = entry.dtls {
                report(association.receive(bytes, nowMs: clock.milliseconds), of: entry)
                sendHandshake(entry, association)
            }
        }
    }

    /// Whether an ICE state has a pair to send on.
    static func isConnected(_ state: ICEConnectionState) -> Bool { state == .connected || state == .completed }

    /// Sends one datagram on the call's path: its ICE pair, or the socket for RTCP (its own,
    /// without rtcp-mux) or RTP.
    private func sendOnPath(_ entry: Entry, _ datagram: UnsafeRawBufferPointer, rtcp: Bool) throws(SocketError) {
        if let ice = entry.transport.ice {
            // No pair yet, or the system refused: lost as on a network (RTP and RTCP recover).
            _ = ice.send(datagram)
            return
        }
        guard let socket = (rtcp ? entry.transport.rtcp : nil) ?? entry.transport.rtp else { return }
        _ = try socket.send(datagram)
    }

    /// Retransmits a lost handshake flight when due, and fails a handshake past its deadline.
    private func pollHandshake(_ entry: Entry, nowMs: Double) {
        guard let association = entry.dtls, entry.handshakeStarted, association.association.state == .handshaking else { return }
        report(association.poll(nowMs: nowMs), of: entry)
        sendHandshake(entry, association)
    }

    /// Sends what the association has for the peer, on the RTP socket.
    private func sendHandshake(_ entry: Entry, _ association: DTLSCallKeying) {
        var failure: SocketError?
        association.drainDatagrams { datagram in
            datagram.withUnsafeBytes { bytes in
                do throws(SocketError) {
                    try sendOnPath(entry, bytes, rtcp: false)
                } catch {
                    failure = error
                }
            }
        }
        if let failure { post(.socketFailed(entry.id, failure)) }
    }

    /// Posts what became of a call's handshake.
    private func report(_ event: DTLSCallKeying.Event?, of entry: Entry) {
        switch event {
        case nil: break
        case let .connected(profile, peerFingerprint): post(.dtlsConnected(entry.id, profile: profile, peerFingerprint: peerFingerprint))
        case let .failed(error): post(.dtlsFailed(entry.id, error))
        case .closed: post(.dtlsClosed(entry.id))
        }
    }

    /// Symmetric RTP: an authenticated datagram from elsewhere moves the socket's remote there.
    /// A parallel stream's datagrams never get here as authenticated: `CallMedia` drops another
    /// sender's RTP and RTCP while the current sender is still talking, so the latch follows
    /// the stream being played and moves only once that one has gone silent.
    private func latch(_ entry: Entry, socket: UDPSocket, source: PeerAddress, disposition: ReceivedDatagramDisposition) {
        guard policy == .authenticated, disposition.isAuthenticated, socket.remote != source else { return }
        socket.setRemote(source)
        post(.remoteAddressLatched(entry.id, source.endpoint, rtcp: socket === entry.transport.rtcp))
    }

    /// Protects and sends what `entry`'s call queued, and its RTCP when due.
    private func send(_ entry: Entry, nowMs: Double) {
        var failure: SocketError?
        entry.media.sendDatagrams(nowMs: nowMs) { datagram in
            do throws(SocketError) {
                try sendOnPath(entry, datagram, rtcp: CallMedia.isRTCP(datagram))
            } catch {
                failure = error
            }
        }
        if let failure { post(.socketFailed(entry.id, failure)) }
    }

    private func sendBye(_ entry: Entry) {
        entry.media.sendBye { datagram in try? sendOnPath(entry, datagram, rtcp: true) }
    }
}
