// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
import Locking

/// A must-report push between its delivery and its verdict: open until the app calls the
/// completion handler (the verdict is then whether a report was made before that call) or
/// until `completionTimeout` passes on the registry's clock (then whether one was made at
/// all). Closes exactly once, whichever comes first; later completions do nothing.
final class PendingVoIPPush: Sendable {
    /// How it was closed.
    enum Closing: Sendable {
        case completed
        case timedOut
    }

    let callUUID: UUID
    /// The typed payload's call id, when the push had one: a cancel push names it.
    let payloadCallUUID: UUID?
    let channel: PushChannel
    let deliveredAt: Date
    let hadNoDelegate: Bool
    /// `incomingCallReportCount` at delivery: a higher count at closing means reported.
    let reportsBefore: Int
    /// Who waits for the verdict (`reportNewIncomingVoIPPushPayload`'s completion).
    let verdict: @Sendable (VoIPPushReportError?) -> Void
    private let timer = Locked<CallTimer?>(nil)
    private let closed = Locked(false)

    init(payloadCallUUID: UUID?, channel: PushChannel, deliveredAt: Date, hadNoDelegate: Bool, reportsBefore: Int,
         verdict: @escaping @Sendable (VoIPPushReportError?) -> Void) {
        self.verdict = verdict
        // A payload keyed the app's own way has no call id of ours: a violation names a fresh one.
        callUUID = payloadCallUUID ?? UUID()
        self.payloadCallUUID = payloadCallUUID
        self.channel = channel
        self.deliveredAt = deliveredAt
        self.hadNoDelegate = hadNoDelegate
        self.reportsBefore = reportsBefore
    }

    /// Starts the bound on how long the app may hold the completion handler.
    func arm(_ timer: CallTimer) { self.timer.withLock { $0 = timer } }

    /// True the first time only: the caller then decides the verdict.
    func close() -> Bool {
        let first = closed.withLock { closed -> Bool in
            defer { closed = true }
            return !closed
        }
        if first { timer.withLock { $0?.cancel() } }
        return first
    }
}
