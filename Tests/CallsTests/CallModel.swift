// SPDX-License-Identifier: Apache-2.0
@testable import Calls
import Foundation

/// The reference model of the provider for the model-based test: calls, pending actions with
/// their deadlines, and the audio the calls should have, by the rules written down once more
/// in the plainest form (no locks, no queues, no sessions), so the provider can be checked
/// against it after every step.
struct CallModel {
    struct Call {
        let incoming: Bool
        let supportsHolding: Bool
        var answerRequested = false
        var mediaReady = false
        var held = false
        var muted = false
        var systemEnd = false
        var ringDeadline: Double?
        var ringSeq = 0

        var ringing: Bool { incoming && !answerRequested && !mediaReady && !systemEnd }
        var wantsAudio: Bool { mediaReady && !held }
    }

    struct Action {
        let kind: ActionKind
        let call: UUID
        let onHold: Bool?
        let muted: Bool?
        let deadline: Double
        let seq: Int
        /// The provider's action, once matched (system actions are matched after the step).
        var action: CallAction?
        var expected: ActionState = .pending
        /// Its call ended while it was pending: the system failed it.
        var endedWithCall = false
        /// The app failed it after that (accepted once).
        var failAcknowledged = false
    }

    /// An action the model expects a request to perform: kind, call, hold value.
    struct Expected: Equatable, Hashable {
        let kind: ActionKind
        let call: UUID
        let onHold: Bool?
    }

    let timeouts: ActionTimeouts
    let maximumGroups: Int
    var now = 0.0
    var calls: [UUID: Call] = [:]
    var actions: [Action] = []
    var seq = 0
    var audio = false
    var endedReasons: [UUID: CallEndedReason] = [:]

    var pending: [Int] { actions.indices.filter { actions[$0].expected == .pending } }
    var ringing: Bool { calls.values.contains(where: \.ringing) && !audio }

    // MARK: Requests

    enum Request {
        case start(UUID), answer(UUID), end(UUID), held(UUID, Bool), muted(UUID, Bool), dtmf(UUID)
    }

    enum Verdict: Equatable {
        case refused(RequestTransactionError.Code)
        /// Accepted: these actions are performed, in this order (the request's own last), or
        /// none when it changes nothing (a mute already in place).
        case performs([Expected])
    }

    func hasPending(_ call: UUID, _ test: (Action) -> Bool) -> Bool {
        pending.contains { actions[$0].call == call && test(actions[$0]) }
    }

    /// What the provider should do with `request`.
    func verdict(_ request: Request) -> Verdict {
        func room(for target: UUID) -> [Expected] {
            calls.compactMap { uuid, other in
                guard uuid != target, !hasPending(uuid, { $0.kind == .end }) else { return nil }
                let active = (other.mediaReady || other.answerRequested || !other.incoming) && !other.held
                    && !hasPending(uuid, { $0.kind == .setHeld && $0.onHold == true })
                guard active else { return nil }
                return other.supportsHolding ? Expected(kind: .setHeld, call: uuid, onHold: true) : Expected(kind: .end, call: uuid, onHold: nil)
            }
        }
        switch request {
        case let .start(uuid):
            guard calls.count < maximumGroups else { return .refused(.maximumCallGroupsReached) }
            return .performs(room(for: uuid) + [Expected(kind: .start, call: uuid, onHold: nil)])
        case let .answer(uuid):
            guard let call = calls[uuid] else { return .refused(.unknownCallUUID) }
            guard call.incoming, !call.answerRequested, !call.mediaReady, !call.systemEnd, !hasPending(uuid, { $0.kind == .end }) else {
                return .refused(.invalidAction)
            }
            return .performs(room(for: uuid) + [Expected(kind: .answer, call: uuid, onHold: nil)])
        case let .end(uuid):
            guard calls[uuid] != nil else { return .refused(.unknownCallUUID) }
            guard !hasPending(uuid, { $0.kind == .end }) else { return .refused(.invalidAction) }
            return .performs([Expected(kind: .end, call: uuid, onHold: nil)])
        case let .held(uuid, onHold):
            guard let call = calls[uuid] else { return .refused(.unknownCallUUID) }
            if onHold {
                guard call.supportsHolding, !call.ringing else { return .refused(.invalidAction) }
                return .performs([Expected(kind: .setHeld, call: uuid, onHold: true)])
            }
            return .performs(room(for: uuid) + [Expected(kind: .setHeld, call: uuid, onHold: false)])
        case let .muted(uuid, muted):
            guard let call = calls[uuid] else { return .refused(.unknownCallUUID) }
            if call.muted == muted, !hasPending(uuid, { $0.kind == .setMuted }) { return .performs([]) }
            return .performs([Expected(kind: .setMuted, call: uuid, onHold: nil)])
        case let .dtmf(uuid):
            return calls[uuid] == nil ? .refused(.unknownCallUUID) : .performs([Expected(kind: .playDTMF, call: uuid, onHold: nil)])
        }
    }

    /// Records what an accepted request did: the actions the provider performed (checked by
    /// the caller against `verdict`), new calls, answers under way.
    mutating func accepted(_ request: Request, performed: [CallAction]) {
        for action in performed { register(action) }
        switch request {
        case let .start(uuid): calls[uuid] = Call(incoming: false, supportsHolding: true)
        case let .answer(uuid): calls[uuid]?.answerRequested = true
        default: break
        }
        reconcile()
    }

    mutating func register(_ action: CallAction) {
        let kind = action.kind
        actions.append(Action(kind: kind, call: action.callUUID, onHold: (action as? SetHeldCallAction)?.isOnHold,
                              muted: (action as? SetMutedCallAction)?.isMuted, deadline: now + kind.timeout(in: timeouts),
                              seq: seq, action: action))
        seq += 1
    }

    // MARK: Events

    mutating func incoming(_ uuid: UUID, supportsHolding: Bool) -> IncomingCallError.Code? {
        guard calls.count < maximumGroups else { return .maximumCallGroupsReached }
        calls[uuid] = Call(incoming: true, supportsHolding: supportsHolding, ringDeadline: now + timeouts.unanswered, ringSeq: seq)
        seq += 1
        reconcile()
        return nil
    }

    /// Action `index` completes with `outcome` (fulfilled, failed: by the app; timedOut: the clock).
    mutating func complete(_ index: Int, _ outcome: ActionState) {
        actions[index].expected = outcome
        let action = actions[index]
        guard var call = calls[action.call] else { return reconcile() }
        let fulfilled = outcome == .fulfilled
        switch action.kind {
        case .start, .answer:
            guard fulfilled else { return end(action.call, .failed) }
            call.mediaReady = true
        case .end:
            return end(action.call, call.systemEnd ? .unanswered : fulfilled ? .local : .failed)
        case .setHeld:
            if fulfilled { call.held = action.onHold! }
        case .setMuted:
            if fulfilled { call.muted = action.muted! }
        default:
            break
        }
        calls[action.call] = call
        reconcile()
    }

    mutating func end(_ uuid: UUID, _ reason: CallEndedReason) {
        guard calls.removeValue(forKey: uuid) != nil else { return }
        endedReasons[uuid] = reason
        for index in pending where actions[index].call == uuid {
            actions[index].expected = .failed
            actions[index].endedWithCall = true
        }
        reconcile()
    }

    mutating func reset() {
        for uuid in calls.keys.sorted(by: { $0.uuidString < $1.uuidString }) { end(uuid, .failed) }
    }

    /// Moves time on by `seconds`: timeouts and ring times fire in deadline order (ties in
    /// the order they were set, as the clock does). Returns the calls whose ring time passed
    /// (the provider performs an end action for each, matched by the caller).
    mutating func advance(by seconds: Double) -> [UUID] {
        let end = now + seconds
        var rang: [UUID] = []
        while true {
            let actionDue = pending.filter { actions[$0].deadline <= end }.map { (actions[$0].deadline, actions[$0].seq, Optional($0), UUID?.none) }
            let ringDue = calls.compactMap { uuid, call -> (Double, Int, Int?, UUID?)? in
                guard let deadline = call.ringDeadline, deadline <= end else { return nil }
                return (deadline, call.ringSeq, nil, uuid)
            }
            guard let next = (actionDue + ringDue).min(by: { ($0.0, $0.1) < ($1.0, $1.1) }) else { break }
            now = max(now, next.0)
            if let index = next.2 {
                complete(index, .timedOut)
            } else if let uuid = next.3 {
                calls[uuid]!.ringDeadline = nil
                guard calls[uuid]!.ringing else { continue }
                calls[uuid]!.systemEnd = true
                actions.append(Action(kind: .end, call: uuid, onHold: nil, muted: nil, deadline: now + timeouts.end, seq: seq, action: nil))
                seq += 1
                rang.append(uuid)
                reconcile()
            }
        }
        now = end
        return rang
    }

    /// The audio rule: active while a call has its media and is not held; kept while a
    /// pending answer, start or resume is about to give a call the audio.
    mutating func reconcile() {
        let wants = calls.values.contains(where: \.wantsAudio)
        let aboutTo = pending.contains { index in
            let action = actions[index]
            return calls[action.call] != nil && (action.kind == .answer || action.kind == .start || (action.kind == .setHeld && action.onHold == false))
        }
        audio = wants || (audio && aboutTo)
    }
}
