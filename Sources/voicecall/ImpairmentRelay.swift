// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Locking
import Transport

/// A UDP relay that impairs what it carries, one `SimulatedNetworkPath` per direction: what
/// arrives on `front` leaves from `back` toward the back peer after its path's delay (or never,
/// when the path loses it), and what arrives on `back` goes the other way. Each side sees one
/// peer address, as symmetric RTP expects. The front peer is given, or learnt from the latest
/// datagram `front` received (a sender that only knows the relay's address). Runs on its own
/// thread; datagrams leave within about a millisecond of their due time, in due order (a
/// packet delayed less overtakes one sent before it).
///
/// The demo's real-time run puts one between its two softphones; `voicecall relay` puts one
/// between any two UDP endpoints.
final class ImpairmentRelay: @unchecked Sendable {
    // @unchecked: the sockets are thread-safe; `state` is behind its lock; `thread` is set by
    // `start` and cleared by `stop` on the caller's thread.

    /// How a datagram finds its fate on its path.
    enum Indexing {
        /// By its send time: the trace packet sent nearest to it (the demo's calls, with RTCP
        /// sharing the fate of the packet it travels with).
        case sendTime
        /// An RTP packet by its index in the stream (its sequence number counted from the
        /// first one seen, across wrap-around), so every run loses and delays the same
        /// packets whatever their timing; anything else (RTCP, STUN) by send time.
        case rtpIndex
    }

    /// What the relay did in one direction.
    struct DirectionCounts: Equatable {
        /// Datagrams received.
        var received = 0
        /// Datagrams the path lost.
        var dropped = 0
        /// Datagrams sent on.
        var forwarded = 0
        /// Datagrams that could not be sent on (no peer known yet, or the send failed).
        var undeliverable = 0
    }

    /// The socket the front peer sends to and hears from.
    let front: UDPSocket
    /// The socket the back peer sends to and hears from.
    let back: UDPSocket
    private let indexing: Indexing
    private let state: Locked<State>
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    private struct Pending {
        var dueNanoseconds: Int64
        var bytes: [UInt8]
        var towardBack: Bool
    }

    private struct State {
        var forward: SimulatedNetworkPath
        var backward: SimulatedNetworkPath
        var forwardIndex = RTPStreamIndex()
        var backwardIndex = RTPStreamIndex()
        var forwardCounts = DirectionCounts()
        var backwardCounts = DirectionCounts()
        var stopping = false
    }

    /// A relay between `front` and `back`, impairing front-to-back datagrams with `forward`
    /// and back-to-front ones with `backward`.
    init(front: UDPSocket, back: UDPSocket, forward: SimulatedNetworkPath, backward: SimulatedNetworkPath, indexing: Indexing) {
        self.front = front
        self.back = back
        self.indexing = indexing
        state = Locked(State(forward: forward, backward: backward))
    }

    /// A relay on two new sockets on 127.0.0.1 (ports chosen by the system).
    convenience init(forward: SimulatedNetworkPath, backward: SimulatedNetworkPath, indexing: Indexing = .sendTime) throws(SocketError) {
        self.init(front: try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)),
                  back: try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)),
                  forward: forward, backward: backward, indexing: indexing)
    }

    /// Both paths as they stand (their applied delays and drops so far).
    var paths: (forward: SimulatedNetworkPath, backward: SimulatedNetworkPath) {
        state.withLock { ($0.forward, $0.backward) }
    }

    /// What each direction did so far.
    var counts: (forward: DirectionCounts, backward: DirectionCounts) {
        state.withLock { ($0.forwardCounts, $0.backwardCounts) }
    }

    /// Starts relaying to `backPeer` and, when given, `frontPeer` (otherwise the front peer is
    /// whoever last sent to `front`).
    func start(frontPeer: UDPEndpoint?, backPeer: UDPEndpoint) throws(SocketError) {
        if let frontPeer { try front.setRemote(frontPeer) }
        try back.setRemote(backPeer)
        let origin = MonotonicClock.nanoseconds, learnsFrontPeer = frontPeer == nil
        let thread = Thread { [self] in
            run(origin: origin, learnsFrontPeer: learnsFrontPeer)
            done.signal()
        }
        thread.name = "voicecall relay"
        self.thread = thread
        thread.start()
    }

    /// Stops relaying and waits for the thread (what is still pending is dropped).
    func stop() {
        guard thread != nil else { return }
        state.withLock { $0.stopping = true }
        done.wait()
        thread = nil
    }

    private func run(origin: Int64, learnsFrontPeer: Bool) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 16)
        defer { buffer.deallocate() }
        var pending: [Pending] = []
        while !state.withLock({ $0.stopping }) {
            let now = MonotonicClock.nanoseconds
            for (socket, towardBack) in [(front, true), (back, false)] {
                while let received = try? socket.receive(into: buffer) {
                    guard received.length <= buffer.count else { continue }
                    if towardBack && learnsFrontPeer && front.remote != received.source { front.setRemote(received.source) }
                    let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<received.length])
                    let sendMs = Double(now - origin) / 1e6
                    let fate = state.withLock { state -> Double? in
                        if towardBack {
                            state.forwardCounts.received += 1
                            let index = indexing == .rtpIndex ? state.forwardIndex.index(of: bytes) : nil
                            let fate = state.forward.fate(sendMs: sendMs, index: index)
                            if fate == nil { state.forwardCounts.dropped += 1 }
                            return fate
                        }
                        state.backwardCounts.received += 1
                        let index = indexing == .rtpIndex ? state.backwardIndex.index(of: bytes) : nil
                        let fate = state.backward.fate(sendMs: sendMs, index: index)
                        if fate == nil { state.backwardCounts.dropped += 1 }
                        return fate
                    }
                    guard let delayMs = fate else { continue }
                    pending.append(Pending(dueNanoseconds: now + Int64(delayMs * 1e6), bytes: Array(bytes), towardBack: towardBack))
                }
            }
            // Release what is due, in due order.
            pending.sort { $0.dueNanoseconds < $1.dueNanoseconds }
            var released = 0
            for item in pending {
                guard item.dueNanoseconds <= now else { break }
                released += 1
                let sent = item.bytes.withUnsafeBytes { bytes in
                    (try? (item.towardBack ? back : front).send(bytes)) ?? false
                }
                state.withLock { state in
                    if item.towardBack {
                        if sent { state.forwardCounts.forwarded += 1 } else { state.forwardCounts.undeliverable += 1 }
                    } else {
                        if sent { state.backwardCounts.forwarded += 1 } else { state.backwardCounts.undeliverable += 1 }
                    }
                }
            }
            pending.removeFirst(released)
            let next = pending.first.map { max(0, Int(($0.dueNanoseconds - MonotonicClock.nanoseconds) / 1_000_000)) } ?? 5
            _ = try? front.waitForData(timeoutMs: min(next, 1))
        }
    }
}

/// An RTP packet's index in its stream: its sequence number counted from the first one seen,
/// extended across wrap-around (RFC 3550 A.1's way, without the probation). Nil for a datagram
/// that is not RTP version 2, or is RTCP (packet types 200–204 share the port under rtcp-mux).
struct RTPStreamIndex {
    private var first: Int?
    private var highest = 0

    mutating func index(of datagram: UnsafeRawBufferPointer) -> Int? {
        guard datagram.count >= 12, datagram[0] >> 6 == 2, !(200...204).contains(datagram[1]), !(72...76).contains(datagram[1] & 0x7F) else {
            return nil
        }
        let sequence = Int(datagram[2]) << 8 | Int(datagram[3])
        guard let first else {
            self.first = sequence
            highest = sequence
            return 0
        }
        // The extended sequence nearest the highest seen (a packet up to half the space away).
        var extended = (highest & ~0xFFFF) | sequence
        if extended - highest > 0x8000 { extended -= 0x10000 } else if highest - extended > 0x8000 { extended += 0x10000 }
        highest = max(highest, extended)
        return max(extended - first, 0)
    }
}
