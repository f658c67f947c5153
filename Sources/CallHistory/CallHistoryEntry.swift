// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation

/// One call in the recents list: who, which way, when, how long, how it ended.
public struct CallHistoryEntry: Sendable, Hashable, Identifiable {
    /// Which way a call went.
    public enum Direction: Int, Sendable, Hashable, CaseIterable {
        /// The other party called.
        case incoming = 0
        /// This side called.
        case outgoing = 1
    }

    /// The call's UUID (the provider's).
    public var id: UUID
    /// The other party, when known.
    public var handle: CallHandle?
    /// The name shown for the other party (the app's or the call directory's).
    public var name: String?
    /// Which way the call went.
    public var direction: Direction
    /// When the call was reported or started.
    public var startDate: Date
    /// When it connected (answered here, or the far end answered), or nil if it never did.
    public var connectDate: Date?
    /// When it ended, or nil while it is live (or if the process died during it).
    public var endDate: Date?
    /// Talk time: connect to end (0 when it never connected or has not ended).
    public var duration: TimeInterval
    /// Why it ended (nil while live).
    public var endedReason: CallEndedReason?
    /// An incoming call nobody here answered that the caller gave up on or that rang out.
    public var isMissed: Bool
    /// Whether it had video.
    public var hasVideo: Bool

    /// An entry; `duration` and `isMissed` follow from the rest unless given.
    public init(id: UUID, handle: CallHandle?, name: String? = nil, direction: Direction, startDate: Date,
                connectDate: Date? = nil, endDate: Date? = nil, endedReason: CallEndedReason? = nil,
                hasVideo: Bool = false, duration: TimeInterval? = nil, isMissed: Bool? = nil) {
        self.id = id
        self.handle = handle
        self.name = name
        self.direction = direction
        self.startDate = startDate
        self.connectDate = connectDate
        self.endDate = endDate
        self.endedReason = endedReason
        self.hasVideo = hasVideo
        self.duration = duration ?? Self.talkTime(connectDate, endDate)
        self.isMissed = isMissed ?? Self.isMissed(direction, connectDate, endedReason)
    }

    /// Connect to end, 0 when either is missing.
    static func talkTime(_ connect: Date?, _ end: Date?) -> TimeInterval {
        guard let connect, let end else { return 0 }
        return max(0, end.timeIntervalSince(connect))
    }

    /// Missed: incoming, never connected, and it ended because it rang out or the caller hung
    /// up. Declined here (`local`), handled on another device or failed is not missed.
    static func isMissed(_ direction: Direction, _ connect: Date?, _ reason: CallEndedReason?) -> Bool {
        direction == .incoming && connect == nil && (reason == .unanswered || reason == .remoteEnded)
    }

    /// The start action that calls the other party back (nil without a handle): request it
    /// with `CallController.requestTransaction(with:)`.
    public func redialAction(callUUID: UUID = UUID()) -> StartCallAction? {
        handle.map { StartCallAction(call: callUUID, handle: $0, isVideo: hasVideo) }
    }

    /// The transaction of `redialAction(callUUID:)` (nil without a handle).
    public func redialTransaction(callUUID: UUID = UUID()) -> CallTransaction? {
        redialAction(callUUID: callUUID).map { CallTransaction(action: $0) }
    }
}
