// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Transactions: validated as a whole against the calls as they will be after each action,
/// then performed in order.
extension CallProvider {
    /// Validates `transaction`, then performs its actions in order (plus the holds or ends
    /// the system adds so that one call at a time has the audio).
    /// - Throws: `RequestTransactionError`; nothing runs then.
    func submit(_ transaction: CallTransaction) throws(RequestTransactionError) {
        try state.withLock { (state: inout State) throws(RequestTransactionError) in
            guard !state.isInvalidated else { throw .unknownCallProvider }
            guard !transaction.actions.isEmpty else { throw .emptyTransaction }
            var calls = state.calls
            var pendingHolds = Set(state.pending.values.compactMap { ($0 as? SetHeldCallAction)?.isOnHold == true ? $0.callUUID : nil })
            let pendingEnds = Set(state.pending.values.compactMap { $0 is EndCallAction ? $0.callUUID : nil })
            var pendingMutes = Set(state.pending.values.compactMap { $0 is SetMutedCallAction ? $0.callUUID : nil })
            var perform: [CallAction] = []
            var noChange: [CallAction] = []
            var seen = Set<ObjectIdentifier>()

            /// Holds (or ends, when it cannot hold) every other call that has or is about to
            /// have the audio, so `target` gets it alone.
            func makeRoom(for target: UUID, group: UUID?) {
                for (uuid, other) in calls where uuid != target && other.group != group && !pendingEnds.contains(uuid) {
                    let active = (other.mediaReady || other.answerRequested || other.isOutgoing) && !other.isOnHold && !pendingHolds.contains(uuid)
                    guard active else { continue }
                    state.systemActions += 1
                    if other.update.supportsHolding {
                        perform.append(SetHeldCallAction(call: uuid, onHold: true))
                        calls[uuid]!.isOnHold = true
                        pendingHolds.insert(uuid)
                    } else {
                        perform.append(EndCallAction(call: uuid))
                        calls.removeValue(forKey: uuid)
                    }
                }
            }

            for action in transaction.actions {
                let taken = action.runtime.withLock { $0.state != .pending || $0.onComplete != nil }
                guard !taken, seen.insert(ObjectIdentifier(action)).inserted else {
                    throw .invalidAction(reason: "\(action) was requested before")
                }
                let uuid = action.callUUID
                if let start = action as? StartCallAction {
                    guard calls[uuid] == nil, state.calls[uuid] == nil else { throw .callUUIDAlreadyExists(uuid) }
                    guard configuration.supportedHandleTypes.contains(start.handle.kind) else {
                        throw .invalidAction(reason: "handle type \(start.handle.kind) is not supported")
                    }
                    guard !start.isVideo || configuration.supportsVideo else { throw .invalidAction(reason: "video is not supported") }
                    guard Set(calls.values.map(\.group)).count < configuration.maximumCallGroups else {
                        throw .maximumCallGroupsReached(maximum: configuration.maximumCallGroups)
                    }
                    makeRoom(for: uuid, group: nil)
                    calls[uuid] = CallRecord(uuid: uuid, isOutgoing: true, update: CallUpdate(remoteHandle: start.handle, hasVideo: start.isVideo))
                    perform.append(start)
                    continue
                }
                guard let call = calls[uuid] else { throw .unknownCallUUID(uuid) }
                switch action {
                case is AnswerCallAction:
                    guard !call.isOutgoing else { throw .invalidAction(reason: "call \(uuid) is outgoing") }
                    guard !call.answerRequested, !call.mediaReady else { throw .invalidAction(reason: "call \(uuid) was answered already") }
                    guard call.systemEndReason == nil, !pendingEnds.contains(uuid) else { throw .invalidAction(reason: "call \(uuid) is being ended") }
                    makeRoom(for: uuid, group: call.group)
                    calls[uuid]!.answerRequested = true
                case is EndCallAction:
                    guard !pendingEnds.contains(uuid) else { throw .invalidAction(reason: "call \(uuid) is being ended already") }
                    calls.removeValue(forKey: uuid)
                case let held as SetHeldCallAction:
                    if held.isOnHold {
                        guard call.update.supportsHolding else { throw .invalidAction(reason: "call \(uuid) does not support holding") }
                        guard !call.isRinging else { throw .invalidAction(reason: "call \(uuid) rings: answer or end it") }
                        pendingHolds.insert(uuid)
                    } else {
                        // Resuming takes the audio back: the others go on hold (swap).
                        makeRoom(for: uuid, group: call.group)
                        pendingHolds.remove(uuid)
                    }
                    calls[uuid]!.isOnHold = held.isOnHold
                case let muted as SetMutedCallAction:
                    // One mute authority: asking for the state the call is in already changes
                    // nothing and reaches nobody (no ping-pong between app and system).
                    if call.mute.isMuted == muted.isMuted, !pendingMutes.contains(uuid) {
                        noChange.append(action)
                        continue
                    }
                    pendingMutes.insert(uuid)
                case let group as SetGroupCallAction:
                    if let other = group.callUUIDToGroupWith {
                        guard other != uuid else { throw .invalidAction(reason: "call \(uuid) cannot group with itself") }
                        guard let target = calls[other] else { throw .unknownCallUUID(other) }
                        guard call.update.supportsGrouping, target.update.supportsGrouping else {
                            throw .invalidAction(reason: "calls \(uuid) and \(other) do not both support grouping")
                        }
                        let members = calls.values.filter { $0.group == target.group && $0.uuid != uuid }.count
                        guard members < configuration.maximumCallsPerCallGroup else {
                            throw .maximumCallGroupsReached(maximum: configuration.maximumCallsPerCallGroup)
                        }
                        calls[uuid]!.group = target.group
                    } else {
                        guard call.update.supportsUngrouping else { throw .invalidAction(reason: "call \(uuid) does not support ungrouping") }
                        let alone = !calls.values.contains { $0.group == call.group && $0.uuid != uuid }
                        guard alone || Set(calls.values.map(\.group)).count < configuration.maximumCallGroups else {
                            throw .maximumCallGroupsReached(maximum: configuration.maximumCallGroups)
                        }
                        calls[uuid]!.group = alone ? call.group : uuid
                    }
                case let dtmf as PlayDTMFCallAction:
                    guard call.update.supportsDTMF else { throw .invalidAction(reason: "call \(uuid) does not support DTMF") }
                    guard !dtmf.digits.isEmpty, dtmf.events != nil else {
                        throw .invalidAction(reason: "\"\(dtmf.digits)\" is not a sequence of keys 0–9, *, #, A–D")
                    }
                case is SetTranslatingCallAction:
                    break
                default:
                    throw .invalidAction(reason: "\(action) is not an action this provider performs")
                }
                perform.append(action)
            }

            // Valid: from here on everything runs.
            for action in noChange { try? action.complete(.fulfilled, payload: nil) }
            for action in perform {
                if let start = action as? StartCallAction {
                    let record = CallRecord(uuid: start.callUUID, isOutgoing: true,
                                            update: CallUpdate(remoteHandle: start.handle, hasVideo: start.isVideo))
                    state.calls[start.callUUID] = record
                    state.order.append(start.callUUID)
                    publish(state, record.observed())
                } else if action is AnswerCallAction, state.calls[action.callUUID] != nil {
                    state.calls[action.callUUID]!.answerRequested = true
                    publish(state, state.calls[action.callUUID]!.observed())
                }
                take(action, &state)
            }
        }
        // An answer request stops the ringing.
        reconcileAudio()
    }
}
