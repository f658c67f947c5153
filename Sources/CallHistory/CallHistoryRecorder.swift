// SPDX-License-Identifier: Apache-2.0
import Calls
import Dispatch
import Foundation
import Locking

/// Records every call of a provider into a `CallHistory` — when the provider's configuration
/// includes calls in recents, and none otherwise. A call is written when it appears, when it
/// connects, when what is known of it changes (handle, name, video) and when it ends, each
/// write its own commit, on a private queue (never on the provider's lock or the app's queue).
/// A write that fails is kept in `errors` and its call waits in `pendingWrites` to be written
/// again (`RetryPolicy`): a database another process holds locked loses no call.
public final class CallHistoryRecorder: Sendable {
    /// Where calls go.
    public let history: CallHistory
    private let observer: CallObserver
    private let queue: DispatchQueue
    /// What the handler shares with the recorder (a `Locked` cannot be captured itself).
    private final class Shared: Sendable {
        /// The live calls as last written.
        let live = Locked<[UUID: CallHistoryEntry]>([:])
        let failures = Locked<[CallHistoryError]>([])
        let pending: Locked<PendingWrites>
        let history: CallHistory
        let policy: RetryPolicy
        let queue: DispatchQueue

        init(history: CallHistory, policy: RetryPolicy, queue: DispatchQueue) {
            self.history = history
            self.policy = policy
            self.queue = queue
            pending = Locked(PendingWrites(policy: policy))
        }

        /// Writes `entry` after the calls waiting (one transaction: all or none); on a failure
        /// `entry` joins them (the bound applies then) and they all wait for the next retry.
        /// On the recorder's queue, so nothing changes the waiting calls meanwhile.
        func write(_ entry: CallHistoryEntry?) {
            var batch = pending.withLock { $0.all }
            if let entry {
                batch.removeAll { $0.id == entry.id }
                batch.append(entry)
            }
            guard !batch.isEmpty else { return }
            do throws(CallHistoryError) {
                try history.record(batch)
                pending.withLock { $0.removeAll(policy: policy) }
            } catch {
                if let entry { pending.withLock { $0.add(entry, maximum: policy.maximumPendingCalls) } }
                failures.withLock { $0.append(error) }
                scheduleRetry()
            }
        }

        /// One retry after the current delay (which then doubles), unless one is scheduled.
        private func scheduleRetry() {
            let delay = pending.withLock { pending -> Double? in
                guard !pending.retryScheduled else { return nil }
                pending.retryScheduled = true
                defer { pending.nextDelay = min(pending.nextDelay * 2, policy.maximumDelay) }
                return pending.nextDelay
            }
            guard let delay else { return }
            // Strongly: a retry outlives the recorder if need be, and stops once the calls are written.
            queue.asyncAfter(deadline: .now() + delay) { [self] in
                pending.withLock { $0.retryScheduled = false }
                write(nil)
            }
        }
    }

    private let shared: Shared

    /// Starts recording `provider`'s calls; `now` stamps start, connect and end (the wall clock);
    /// `retryPolicy` says how failed writes are kept and retried.
    public init(provider: CallProvider, history: CallHistory, now: @escaping @Sendable () -> Date = { Date() },
                retryPolicy: RetryPolicy = RetryPolicy()) {
        self.history = history
        let queue = DispatchQueue(label: "CallHistory.CallHistoryRecorder")
        self.queue = queue
        shared = Shared(history: history, policy: retryPolicy, queue: queue)
        observer = CallObserver(provider: provider)
        guard provider.configuration.includesCallsInRecents else { return }
        let shared = self.shared
        observer.setHandler(queue: queue) { change in
            guard let entry = Self.apply(change, to: shared.live, at: now()) else { return }
            shared.write(entry)
        }
    }

    /// Waits until every change seen so far is written, has failed (then it waits in
    /// `pendingWrites`) or was retried.
    public func flush() { queue.sync {} }

    /// Writes the calls waiting in `pendingWrites` now, not at the next scheduled retry (an
    /// app that knows the other process let go of the database), and waits for the outcome.
    public func retryPendingWrites() { queue.sync { shared.write(nil) } }

    /// Writes that failed (first writes and retries), oldest first.
    public var errors: [CallHistoryError] { shared.failures.withLock { $0 } }

    /// The calls whose newest state is not written yet (a failed write), waiting for a retry.
    public var pendingWrites: [CallHistoryEntry] { shared.pending.withLock { $0.all } }

    /// Calls dropped from `pendingWrites` because more than `RetryPolicy.maximumPendingCalls` waited.
    public var droppedWrites: Int { shared.pending.withLock { $0.dropped } }

    /// The entry after `change`, or nil when nothing worth writing changed.
    private static func apply(_ change: ObservedCall, to live: borrowing Locked<[UUID: CallHistoryEntry]>, at now: Date) -> CallHistoryEntry? {
        live.withLock { calls in
            let before = calls[change.uuid]
            var entry = before ?? CallHistoryEntry(id: change.uuid, handle: change.remoteHandle, name: change.localizedCallerName,
                                                   direction: change.isOutgoing ? .outgoing : .incoming, startDate: now)
            entry.handle = change.remoteHandle ?? entry.handle
            entry.name = change.localizedCallerName ?? entry.name
            entry.hasVideo = entry.hasVideo || change.hasVideo
            if change.hasConnected && entry.connectDate == nil { entry.connectDate = now }
            if change.hasEnded {
                entry.endDate = now
                entry.endedReason = change.endedReason
                entry.duration = CallHistoryEntry.talkTime(entry.connectDate, now)
                entry.isMissed = CallHistoryEntry.isMissed(entry.direction, entry.connectDate, change.endedReason)
                calls[change.uuid] = nil
            } else {
                calls[change.uuid] = entry
            }
            return entry == before ? nil : entry
        }
    }
}
