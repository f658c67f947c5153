// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine

/// Translation: a SetTranslatingCallAction that starts translating counts as fulfilled only
/// once its translator is in the call's media (or kept for media added later), so a call that
/// says it translates always does.
extension CallProvider {
    /// Installs `handoff`'s translator in the call's media and fulfils `action`, as one step:
    /// under the state lock and the action's, so neither its timeout nor its call's end can
    /// come between the two.
    /// - Throws: `translatorRefused` (the action stays pending), or why the action cannot be
    ///   fulfilled any more (`timedOut`, `callEnded`, `alreadyCompleted`).
    func fulfil(_ action: SetTranslatingCallAction, translatingWith handoff: ActionPayload) throws(ActionError) {
        try state.withLock { (state: inout State) throws(ActionError) in
            let uuid = action.callUUID
            try action.runtime.withLock { (runtime: inout CallAction.Runtime) throws(ActionError) in
                _ = try runtime.admit(.fulfilled)
                if let media = state.calls[uuid]?.media?.media, let translator = handoff.translator {
                    do throws(CallMediaError) { try media.translate(with: translator) } catch { throw .translatorRefused(error) }
                }
                runtime.state = .fulfilled
                runtime.timer?.cancel()
                runtime.timer = nil
            }
            state.pending.removeValue(forKey: action.uuid)
            // A pending action's call exists: its end would have failed the action first.
            guard state.calls[uuid] != nil else { return }
            state.calls[uuid]!.isTranslating = true
            state.calls[uuid]!.translator = handoff
            publish(state, state.calls[uuid]!.observed())
        }
    }

    /// Media added to a call that translates already takes the call's translator; media that
    /// refuses it leaves the call not translating (observers see it).
    func installTranslator(of uuid: UUID, in binding: MediaBinding, _ state: inout State) {
        guard let record = state.calls[uuid], record.isTranslating, let translator = record.translator?.translator else { return }
        guard (try? binding.media.translate(with: translator)) == nil else { return }
        state.calls[uuid]!.isTranslating = false
        state.calls[uuid]!.translator = nil
        publish(state, state.calls[uuid]!.observed())
    }
}
