// SPDX-License-Identifier: Apache-2.0
import Foundation
import RTP

/// Actions: taken (timeout armed, performed by the delegate), completed, timed out, applied.
extension CallProvider {
    /// Takes `action`: arms its timeout, records it pending, performs it on the delegate's queue.
    func take(_ action: CallAction, _ state: inout State) {
        let timeout = action.kind.timeout(in: configuration.timeouts)
        let timer = clock.schedule(after: timeout) { [weak self, weak action] in
            guard let self, let action else { return }
            self.timeOut(action)
        }
        let deadline = clock.now + timeout
        action.runtime.withLock { runtime in
            runtime.timer = timer
            runtime.timeoutDate = deadline
            runtime.provider = self
            runtime.onComplete = { [weak self] action, outcome, payload in
                self?.completed(action, outcome, payload)
            }
        }
        state.pending[action.uuid] = action
        post(state) { provider, delegate in
            switch action {
            case let action as StartCallAction: delegate.provider(provider, perform: action)
            case let action as AnswerCallAction: delegate.provider(provider, perform: action)
            case let action as EndCallAction: delegate.provider(provider, perform: action)
            case let action as SetHeldCallAction: delegate.provider(provider, perform: action)
            case let action as SetMutedCallAction: delegate.provider(provider, perform: action)
            case let action as SetGroupCallAction: delegate.provider(provider, perform: action)
            case let action as PlayDTMFCallAction: delegate.provider(provider, perform: action)
            case let action as SetTranslatingCallAction: delegate.provider(provider, perform: action)
            default: break
            }
        }
    }

    /// The action's timeout passed: unless completed meanwhile, the system fails it, applies
    /// the failure and tells the delegate.
    func timeOut(_ action: CallAction) {
        let timedOut = action.runtime.withLock { runtime -> Bool in
            guard runtime.state == .pending else { return false }
            runtime.state = .timedOut
            runtime.timer = nil
            return true
        }
        guard timedOut else { return }
        state.withLock { state in post(state) { provider, delegate in delegate.provider(provider, timedOutPerforming: action) } }
        completed(action, .timedOut, nil)
    }

    /// Applies an action's outcome to its call, then lets audio follow.
    func completed(_ action: CallAction, _ outcome: ActionState, _ payload: ActionPayload?) {
        let removed = state.withLock { state -> [MediaBinding] in
            state.pending.removeValue(forKey: action.uuid)
            let uuid = action.callUUID
            guard let record = state.calls[uuid] else { return [] }
            let fulfilled = outcome == .fulfilled
            switch action {
            case is StartCallAction, is AnswerCallAction:
                guard fulfilled else { return end(uuid, reason: .failed, &state) }
                state.calls[uuid]!.mediaReady = true
                if action is AnswerCallAction {
                    state.calls[uuid]!.hasConnected = true
                    record.unansweredTimer?.cancel()
                }
            case is EndCallAction:
                return end(uuid, reason: record.systemEndReason ?? (fulfilled ? .local : .failed), &state)
            case let action as SetHeldCallAction:
                guard fulfilled else { return [] }
                // A group is held and resumed as one (its connected members with it): the mixer
                // bridges the unheld calls, so the unheld group is the conference.
                for member in Array(state.calls.keys) where member == uuid
                    || (state.calls[member]!.group == record.group && state.calls[member]!.mediaReady) {
                    state.calls[member]!.isOnHold = action.isOnHold
                    if let binding = state.calls[member]!.media { apply(state.calls[member]!, to: binding) }
                }
            case let action as SetMutedCallAction:
                guard fulfilled else { return [] }
                setMute(uuid, MuteState(isMuted: action.isMuted, changedBy: action.origin), &state)
                return []
            case let action as SetGroupCallAction:
                guard fulfilled else { return [] }
                if let other = action.callUUIDToGroupWith, let target = state.calls[other] {
                    state.calls[uuid]!.group = target.group
                } else {
                    state.calls[uuid]!.group = uuid
                }
            case let action as PlayDTMFCallAction:
                guard fulfilled, let digits = action.events?.map(\.rawValue) else { return [] }
                dispatchDTMF(digits, type: action.type, call: uuid, &state)
                return []
            case let action as SetTranslatingCallAction:
                // Starting is fulfilled through `fulfil(_:translatingWith:)`, which installs the
                // translator before the action counts as fulfilled; what reaches here stops.
                guard fulfilled, !action.isTranslating else { return [] }
                record.media?.media.stopTranslating()
                state.calls[uuid]!.isTranslating = false
                state.calls[uuid]!.translator = nil
            default:
                return []
            }
            publish(state, state.calls[uuid]!.observed())
            return []
        }
        finish(removed)
    }

    /// Sends, schedules or holds the digits of a fulfilled PlayDTMF action.
    private func dispatchDTMF(_ digits: [UInt8], type: PlayDTMFCallAction.ActionType, call uuid: UUID, _ state: inout State) {
        switch type {
        case .singleTone:
            if let media = state.calls[uuid]!.media?.media { Self.send(digits, to: media) }
        case .softPause:
            _ = clock.schedule(after: PlayDTMFCallAction.softPauseSeconds) { [weak self] in
                self?.state.withLock { state in
                    if let media = state.calls[uuid]?.media?.media { Self.send(digits, to: media) }
                }
            }
        case .hardPause:
            state.calls[uuid]!.heldDigits += digits
        }
    }
}
