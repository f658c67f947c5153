// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import Locking

/// The time the provider's timeouts run on: the system's in an app, a virtual one in tests
/// (which then never wait for a real timeout).
public protocol CallClock: Sendable {
    /// Now, in seconds from an arbitrary origin.
    var now: Double { get }
    /// Calls `body` once `seconds` have passed, unless the returned timer is cancelled first.
    /// `body` runs with no lock of the caller's held.
    func schedule(after seconds: Double, _ body: @escaping @Sendable () -> Void) -> CallTimer
}

/// A scheduled call of a `CallClock`; cancelling after it ran does nothing.
public final class CallTimer: Sendable {
    private let cancelled = Locked(false)

    /// A timer not yet cancelled.
    public init() {}

    /// Stops the timer from firing.
    public func cancel() { cancelled.withLock { $0 = true } }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { cancelled.withLock { $0 } }
}

/// The system's monotonic time, timers on a private queue.
public struct SystemCallClock: CallClock {
    private let queue = DispatchQueue(label: "Calls.SystemCallClock")

    /// The system clock.
    public init() {}

    public var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    public func schedule(after seconds: Double, _ body: @escaping @Sendable () -> Void) -> CallTimer {
        let timer = CallTimer()
        queue.asyncAfter(deadline: .now() + seconds) {
            if !timer.isCancelled { body() }
        }
        return timer
    }
}

/// A clock that moves only when told (`advance(by:)`), firing due timers in deadline order on
/// the caller's thread: tests of timeouts run in microseconds and repeat exactly.
public final class ManualCallClock: CallClock {
    private struct Entry {
        let deadline: Double
        let order: Int
        let timer: CallTimer
        let body: @Sendable () -> Void
    }

    private struct State {
        var now = 0.0
        var entries: [Entry] = []
        var nextOrder = 0
    }

    private let state = Locked(State())

    /// A clock at 0 s.
    public init() {}

    public var now: Double { state.withLock { $0.now } }

    public func schedule(after seconds: Double, _ body: @escaping @Sendable () -> Void) -> CallTimer {
        let timer = CallTimer()
        state.withLock { state in
            state.entries.append(Entry(deadline: state.now + max(0, seconds), order: state.nextOrder, timer: timer, body: body))
            state.nextOrder += 1
        }
        return timer
    }

    /// Moves time on by `seconds`, firing every timer due on the way, each at its deadline.
    public func advance(by seconds: Double) {
        let end = now + max(0, seconds)
        while true {
            let due = state.withLock { state -> Entry? in
                guard let index = state.entries.indices.filter({ state.entries[$0].deadline <= end })
                    .min(by: { (state.entries[$0].deadline, state.entries[$0].order) < (state.entries[$1].deadline, state.entries[$1].order) })
                else { return nil }
                let entry = state.entries.remove(at: index)
                state.now = max(state.now, entry.deadline)
                return entry
            }
            guard let due else { break }
            if !due.timer.isCancelled { due.body() }
        }
        state.withLock { $0.now = end }
    }

    /// Timers scheduled and neither fired nor cancelled.
    public var pendingTimers: Int { state.withLock { $0.entries.filter { !$0.timer.isCancelled }.count } }
}
