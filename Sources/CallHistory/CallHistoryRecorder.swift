import Calls
import Dispatch
import Foundation
import Locking

/// Records every call of a provider into a `CallHistory` — when the provider's configuration
/// includes calls in recents, and none otherwise. A call is written when it appears, when it
/// connects, when what is known of it changes (handle, name, video) and when it ends, each
/// write its own commit, on a private queue (never on the provider's lock or the app's queue).
/// A write that fails is kept in `errors`; the call goes on.
public final class CallHistoryRecorder: Sendable {
    /// Where calls go.
    public let history: CallHistory
    private let observer: CallObserver
    private let queue = DispatchQueue(label: "CallHistory.CallHistoryRecorder")
    /// What the handler shares with the recorder (a `Locked` cannot be captured itself).
    private final class Shared: Sendable {
        /// The live calls as last written.
        let live = Locked<[UUID: CallHistoryEntry]>([:])
        let failures = Locked<[CallHistoryError]>([])
    }

    private let shared = Shared()

    /// Starts recording `provider`'s calls; `now` stamps start, connect and end (the wall clock).
    public init(provider: CallProvider, history: CallHistory, now: @escaping @Sendable () -> Date = { Date() }) {
        self.history = history
        observer = CallObserver(provider: provider)
        guard provider.configuration.includesCallsInRecents else { return }
        let shared = self.shared
        observer.setHandler(queue: queue) { change in
            guard let entry = Self.apply(change, to: shared.live, at: now()) else { return }
            do throws(CallHistoryError) {
                try history.record(entry)
            } catch {
                shared.failures.withLock { $0.append(error) }
            }
        }
    }

    /// Waits until every change seen so far is written (or has failed).
    public func flush() { queue.sync {} }

    /// Writes that failed, oldest first.
    public var errors: [CallHistoryError] { shared.failures.withLock { $0 } }

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
