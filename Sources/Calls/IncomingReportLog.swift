// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Every `reportNewIncomingCall` a provider took, refused ones included: how many, and the
/// UUIDs of the most recent (PushRegistry's reporting rule counts them, and learns under which
/// UUID the app reported a push's call, so a later cancel push ends that call).
struct IncomingReportLog: Sendable {
    /// The most recent UUIDs kept: enough for any window between a push and its completion.
    static let recentLimit = 64

    /// Reports so far.
    private(set) var count = 0
    /// The last `recentLimit` reported UUIDs, oldest first; `recent[i]` is report number
    /// `count - recent.count + i`.
    private(set) var recent: [UUID] = []

    mutating func append(_ uuid: UUID) {
        count += 1
        recent.append(uuid)
        if recent.count > Self.recentLimit { recent.removeFirst(recent.count - Self.recentLimit) }
    }

    /// The UUIDs reported after the first `count` reports (as many as are still kept).
    func uuids(since count: Int) -> [UUID] {
        let wanted = max(0, self.count - count)
        return Array(recent.suffix(wanted))
    }
}
