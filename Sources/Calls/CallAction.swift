import Foundation
import Locking
import MediaEngine

/// Where an action stands. It leaves `pending` exactly once.
public enum ActionState: Sendable, Equatable {
    /// Not completed yet.
    case pending
    /// `fulfill()` was called first.
    case fulfilled
    /// `fail()` was called first.
    case failed
    /// The timeout passed first: the system failed it and called `timedOutPerforming`.
    case timedOut
    /// The call ended first (reported ended, reset, invalidated): the action is void.
    case cancelled
}

/// One thing to do to one call (CXCallAction): made by the app, carried in a transaction,
/// performed by the provider's delegate, which completes it exactly once with `fulfill()` or
/// `fail()`. A second completion, or one after the timeout, is refused with a typed
/// `ActionError` (CallKit drops it with a log line).
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

    /// Says the action was done.
    /// - Throws: `alreadyCompleted`, `timedOut` or `callEnded` when it was completed before.
    public func fulfill() throws(ActionError) {
        try complete(.fulfilled, payload: nil)
    }

    /// Says the action could not be done.
    /// - Throws: `alreadyCompleted`, `timedOut` or `callEnded` when it was completed before.
    public func fail() throws(ActionError) {
        try complete(.failed, payload: nil)
    }

    /// The action's kind, for descriptions and timeouts.
    var kind: ActionKind { preconditionFailure("CallAction is abstract") }

    public var description: String { "\(kind)(\(callUUID))" }

    func complete(_ outcome: ActionState, payload: ActionPayload?) throws(ActionError) {
        let handler = try runtime.withLock { (runtime: inout Runtime) throws(ActionError) in
            switch runtime.state {
            case .pending: break
            case .timedOut: throw .timedOut
            case .cancelled: throw .callEnded
            case .fulfilled, .failed: throw .alreadyCompleted
            }
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
