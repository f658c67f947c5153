// SPDX-License-Identifier: Apache-2.0
import Foundation

extension CallHistoryRecorder {
    /// How a recorder keeps writes that failed — another process holding the database's write
    /// lock past the busy timeout, a full disk — until they succeed: the calls wait in a
    /// bounded queue (the newest state of each), written again `firstDelay` seconds later,
    /// the delay doubling up to `maximumDelay`, and before every later write.
    public struct RetryPolicy: Sendable, Hashable {
        /// Seconds before the first retry after a failure.
        public var firstDelay: Double
        /// The longest wait between two retries, in seconds.
        public var maximumDelay: Double
        /// The most calls waiting at once; past it the one waiting longest is dropped (and
        /// counted in `droppedWrites`): the bound on what a database locked for hours costs.
        public var maximumPendingCalls: Int

        /// A policy; the defaults retry after 0.5 s, then at most every 30 s, and hold up to
        /// 1,000 calls.
        public init(firstDelay: Double = 0.5, maximumDelay: Double = 30, maximumPendingCalls: Int = 1_000) {
            self.firstDelay = max(0, firstDelay)
            self.maximumDelay = max(self.firstDelay, maximumDelay)
            self.maximumPendingCalls = max(1, maximumPendingCalls)
        }
    }

    /// The calls waiting to be written again, in the order they first failed.
    struct PendingWrites {
        var order: [UUID] = []
        var entries: [UUID: CallHistoryEntry] = [:]
        var dropped = 0
        var retryScheduled = false
        var nextDelay: Double

        init(policy: RetryPolicy) { nextDelay = policy.firstDelay }

        var all: [CallHistoryEntry] { order.compactMap { entries[$0] } }

        /// Adds `entry` (replacing an older state of the same call), dropping the longest
        /// waiting call past `maximum`.
        mutating func add(_ entry: CallHistoryEntry, maximum: Int) {
            if entries.updateValue(entry, forKey: entry.id) == nil { order.append(entry.id) }
            while order.count > maximum {
                entries[order.removeFirst()] = nil
                dropped += 1
            }
        }

        /// Forgets every waiting call: they are written.
        mutating func removeAll(policy: RetryPolicy) {
            order.removeAll()
            entries.removeAll()
            nextDelay = policy.firstDelay
        }
    }
}
