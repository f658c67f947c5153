// SPDX-License-Identifier: Apache-2.0
internal import CEventFD
internal import Glibc
import SystemErrors

/// Waits on many UDP sockets at once, as a network thread serving every call does: one
/// `poll` over all of them plus an internal `eventfd` that `wake()` signals from any thread.
///
/// Threads: one thread owns the poller — it alone calls `add`, `remove` and `wait` (and
/// `ready` runs on it). Only `wake()` may be called from other threads, e.g. by the control
/// plane after queueing a new call or a hang-up for the network thread. Hence
/// `@unchecked Sendable`: the type may be shared so that others can wake it, nothing more.
///
/// The descriptor array is allocated once for `capacity` sockets, so `wait` allocates nothing.
public final class SocketPoller: @unchecked Sendable {
    /// A registration made by `add`, for `remove`. Tokens are never reused, so removing with
    /// a stale token removes nothing.
    public struct Token: Hashable, Sendable {
        let serial: UInt64
    }

    /// The most sockets the poller holds.
    public let capacity: Int
    /// The largest capacity `init` accepts.
    public static let maximumCapacity = 65_536
    /// The longest wait, in milliseconds: a longer `timeoutMs` is cut to it.
    public static let maximumTimeoutMs = 60_000

    /// `capacity + 1` pollfds: the eventfd first, then one per socket in `sockets` order.
    private let descriptors: UnsafeMutablePointer<pollfd>
    private var sockets: [UDPSocket?]
    private var tokens: [UInt64]
    private var nextSerial: UInt64 = 0
    /// Registered sockets, in slots `0..<count`.
    public private(set) var count = 0
    private let wakeDescriptor: Int32

    /// A poller for up to `capacity` sockets (0…`maximumCapacity`; otherwise `EINVAL`).
    /// Throws `eventfd`'s error if the waker cannot be made.
    public init(capacity: Int) throws(SocketError) {
        guard (0...Self.maximumCapacity).contains(capacity) else {
            throw SocketError(function: "SocketPoller.init", code: .invalidArgument)
        }
        let wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeDescriptor >= 0 else { throw .current("eventfd") }
        self.capacity = capacity
        self.wakeDescriptor = wakeDescriptor
        sockets = Array(repeating: nil, count: capacity)
        tokens = Array(repeating: 0, count: capacity)
        descriptors = .allocate(capacity: capacity + 1)
        descriptors.initialize(repeating: pollfd(fd: -1, events: 0, revents: 0), count: capacity + 1)
        descriptors[0] = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
    }

    deinit {
        descriptors.deinitialize(count: capacity + 1)
        descriptors.deallocate()
        close(wakeDescriptor)
    }

    /// Adds `socket` to those `wait` watches. Throws `ENOBUFS` when the poller already holds
    /// `capacity` sockets and `EEXIST` when it holds this socket already.
    @discardableResult
    public func add(_ socket: UDPSocket) throws(SocketError) -> Token {
        guard count < capacity else { throw SocketError(function: "SocketPoller.add", code: .noBufferSpace) }
        guard slot(of: socket) == nil else { throw SocketError(function: "SocketPoller.add", code: Errno(rawValue: EEXIST)) }
        nextSerial += 1
        sockets[count] = socket
        tokens[count] = nextSerial
        descriptors[count + 1] = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
        count += 1
        return Token(serial: nextSerial)
    }

    /// Stops watching the socket `token` registered and releases the poller's reference to
    /// it. Returns false when the token is not registered (already removed). May be called
    /// from `ready` during `wait`: a removed socket is not reported afterwards.
    @discardableResult
    public func remove(_ token: Token) -> Bool {
        guard let slot = tokens[0..<count].firstIndex(of: token.serial) else { return false }
        let last = count - 1
        // The last slot moves into the hole, its pending events with it.
        sockets[slot] = sockets[last]
        tokens[slot] = tokens[last]
        descriptors[slot + 1] = descriptors[last + 1]
        sockets[last] = nil
        tokens[last] = 0
        descriptors[last + 1] = pollfd(fd: -1, events: 0, revents: 0)
        count = last
        return true
    }

    /// Waits until a socket is readable, `wake()` is called, or `timeoutMs` passes, then calls
    /// `ready` with each socket that is readable or has an error (`POLLERR`, `POLLHUP`): its
    /// next `receive(into:)` returns the datagram or throws the error. Returns without calling
    /// `ready` on a timeout or a wake alone.
    ///
    /// `timeoutMs` is clamped to 0…`maximumTimeoutMs`: negative polls once without waiting
    /// (never "forever", so a bad computed deadline cannot hang the network thread). A signal
    /// does not end the wait early (`EINTR` is retried for the time left). A `wake()` made
    /// before `wait` makes it return at once; all wakes so far are consumed together.
    /// Allocates nothing.
    public func wait(timeoutMs: Int, _ ready: (UDPSocket) -> Void) throws(SocketError) {
        let timeout = Self.clampedTimeoutMs(timeoutMs)
        let start = Self.monotonicMilliseconds()
        var remaining = timeout
        while true {
            let result = poll(descriptors, nfds_t(count + 1), remaining)
            if result >= 0 { break }
            let code = Errno.current
            guard code == .interrupted else { throw SocketError(function: "poll", code: code) }
            let elapsed = Self.monotonicMilliseconds() - start
            remaining = Int32(clamping: max(Int64(timeout) - elapsed, 0))
        }
        if descriptors[0].revents != 0 {
            descriptors[0].revents = 0
            drainWakes()
        }
        let reported = Int16(POLLIN) | Int16(POLLERR) | Int16(POLLHUP) | Int16(POLLNVAL)
        var slot = 0
        while slot < count {
            let events = descriptors[slot + 1].revents
            descriptors[slot + 1].revents = 0
            if events & reported != 0, let socket = sockets[slot] {
                let serial = tokens[slot]
                ready(socket)
                // `ready` may have removed this socket (the last one moved in: look at this
                // slot again) or others; only a slot still holding the same registration is done.
                if slot < count, tokens[slot] != serial { continue }
            }
            slot += 1
        }
    }

    /// Makes the current or next `wait` return at once. Callable from any thread; never
    /// blocks. Cannot fail in a way the caller could act on (the counter saturating means a
    /// wake is pending anyway), so it reports nothing.
    public func wake() {
        var one: UInt64 = 1
        while write(wakeDescriptor, &one, MemoryLayout<UInt64>.size) < 0, errno == EINTR {}
    }

    /// `timeoutMs` within 0…`maximumTimeoutMs`, as `poll` takes it.
    static func clampedTimeoutMs(_ timeoutMs: Int) -> Int32 {
        Int32(min(max(timeoutMs, 0), maximumTimeoutMs))
    }

    private func drainWakes() {
        var counter: UInt64 = 0
        while read(wakeDescriptor, &counter, MemoryLayout<UInt64>.size) < 0, errno == EINTR {}
    }

    private func slot(of socket: UDPSocket) -> Int? {
        (0..<count).first { sockets[$0] === socket }
    }

    private static func monotonicMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}
