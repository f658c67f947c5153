// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking
import MediaEngine

/// Where an action stands. It leaves `pending` exactly once.
public enum ActionState: Sendable, Equatable {
    /// Not completed yet.
    case pending
    /// `fulfill()` was called first.
    case fulfilled
    /// `fail()` was called first, or the call ended first (reported ended, reset,
    /// invalidated): an action that can no longer be done is failed by the system, and the
    /// app's own `fail()` afterwards agrees with it (`endedWithCall` tells the two apart).
    case failed
    /// The timeout passed first: the system failed it and called `timedOutPerforming`.
    case timedOut
}

/// One thing to do to one call (CXCallAction): made by the app, carried in a transaction,
/// performed by the provider's delegate, which completes it exactly once with `fulfill()` or
/// `fail()`. A second completion, or one after the timeout, is refused with a typed
/// `ActionError` (CallKit drops it with a log line). When the call ends first, the action
/// ends `failed` then; the app's `fail()` after that is accepted, in either order, as CallKit
/// accepts it, and its `fulfill()` is refused with `callEnded` (what it did reached no call).
///
/// Subclasses carry each action's values; the class itself is not made directly.
public class CallAction: @unchecked Sendable, CustomStringConvertible {
    // @unchecked: every stored property is a `let`, and the mutable state is behind `Locked`.

    /// This action's identity.
    public let uuid = UUID()
    /// The call it applies to.
    public let callUUID: UUID

    struct Runtime {
        var state: ActionState = .pending
        /// Set when a provider takes the action: applies the outcome (never called with a lock held).
        var onComplete: (@Sendable (CallAction, ActionState, ActionPayload?) -> Void)?
        var timer: CallTimer?
        var timeoutDate: Double?
        /// The call ended while the action was pending: the system failed it.
        var endedWithCall = false
        /// The app's `fail()` after the call ended was taken (a second one is refused).
        var failAcknowledged = false
        /// The provider that took it (the translating action installs its translator through it).
        weak var provider: CallProvider?

        /// Whether `outcome` may complete the action now: true when it is pending; false for
        /// the app's first `fail()` after its call ended (taken, nothing more to do).
        /// - Throws: why the action cannot take `outcome`.
        mutating func admit(_ outcome: ActionState) throws(ActionError) -> Bool {
            switch state {
            case .pending: return true
            case .timedOut: throw .timedOut
            case .failed where endedWithCall:
                // The app's error path reports the call ended, then fails the action (or the
                // other way round): both orders end the same way, so the fail is no mistake.
                guard outcome == .failed else { throw .callEnded }
                guard !failAcknowledged else { throw .alreadyCompleted }
                failAcknowledged = true
                return false
            case .fulfilled, .failed: throw .alreadyCompleted
            }
        }
    }

    let runtime = Locked(Runtime())

    init(call: UUID) {
        callUUID = call
    }

    /// Where the action stands.
    public var state: ActionState { runtime.withLock { $0.state } }
    /// Whether it was completed (fulfilled, failed, timed out or cancelled).
    public var isComplete: Bool { state != .pending }
    /// When the system fails it, on the provider's clock (nil until a provider takes it).
    public var timeoutDate: Double? { runtime.withLock { $0.timeoutDate } }
    /// Whether the system failed it because its call ended while it was pending.
    public var endedWithCall: Bool { runtime.withLock { $0.endedWithCall } }

    /// Says the action was done.
    /// - Throws: `alreadyCompleted`, `timedOut` or `callEnded` when it was completed before;
    ///   `translatorRequired` for a SetTranslatingCallAction that starts translating (it is
    ///   fulfilled with `fulfill(using:)`).
    public func fulfill() throws(ActionError) {
        try complete(.fulfilled, payload: nil)
    }

    /// Says the action could not be done. Accepted also after the call ended (the system
    /// failed the action then; this agrees), as CallKit accepts either order.
    /// - Throws: `alreadyCompleted` or `timedOut` when it was completed before.
    public func fail() throws(ActionError) {
        try complete(.failed, payload: nil)
    }

    /// The action's kind, for descriptions and timeouts.
    var kind: ActionKind { preconditionFailure("CallAction is abstract") }

    public var description: String { "\(kind)(\(callUUID))" }

    /// Refuses a fulfilment this action cannot have (a subclass's rule; none by default).
    func checkFulfilment(_ payload: ActionPayload?) throws(ActionError) {}

    func complete(_ outcome: ActionState, payload: ActionPayload?) throws(ActionError) {
        let handler = try runtime.withLock { (runtime: inout Runtime) throws(ActionError) -> (@Sendable (CallAction, ActionState, ActionPayload?) -> Void)? in
            guard try runtime.admit(outcome) else { return nil }
            if outcome == .fulfilled { try checkFulfilment(payload) }
            runtime.state = outcome
            runtime.timer?.cancel()
            runtime.timer = nil
            return runtime.onComplete
        }
        handler?(self, outcome, payload)
    }
}

/// What a fulfilment hands the system besides "done": a translator.
struct ActionPayload: @unchecked Sendable {
    // @unchecked: the translator is handed once from the app's queue to the provider, which
    // installs it in the call's media (`CallMedia.translate(with:)`) and touches it no more.
    var translator: (any TranslationEngine)?
}

/// The kinds of action, for timeouts and the reference model.
enum ActionKind: String, Sendable, CaseIterable {
    case start, answer, end, setHeld, setMuted, setGroup, playDTMF, setTranslating

    func timeout(in timeouts: ActionTimeouts) -> Double {
        switch self {
        case .start: timeouts.start
        case .answer: timeouts.answer
        case .end: timeouts.end
        case .setHeld: timeouts.setHeld
        case .setMuted: timeouts.setMuted
        case .setGroup: timeouts.setGroup
        case .playDTMF: timeouts.playDTMF
        case .setTranslating: timeouts.setTranslating
        }
    }
}
