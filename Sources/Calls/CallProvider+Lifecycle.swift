// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import RTP

/// How calls end and how their state reaches their media.
extension CallProvider {
    /// Removes call `uuid` with `reason`: its timers stop, its pending actions end failed,
    /// observers see it end. Returns its media, for `finish` to take out of the engine.
    func end(_ uuid: UUID, reason: CallEndedReason, _ state: inout State) -> [MediaBinding] {
        guard let record = state.calls.removeValue(forKey: uuid) else { return [] }
        state.order.removeAll { $0 == uuid }
        record.unansweredTimer?.cancel()
        for (id, action) in state.pending where action.callUUID == uuid {
            state.pending.removeValue(forKey: id)
            action.endWithCall()
        }
        // Calls grouped under this one's UUID keep their group: the identity is only a name.
        publish(state, record.observed(ended: reason))
        return record.media.map { [$0] } ?? []
    }

    /// Ends every call as failed (reset, invalidate).
    func endAll(_ state: inout State) -> [MediaBinding] {
        var removed: [MediaBinding] = []
        for uuid in state.order { removed += end(uuid, reason: .failed, &state) }
        // Actions of calls that never existed (refused) cannot be pending; anything left fails too.
        for action in state.pending.values { action.endWithCall() }
        state.pending = [:]
        return removed
    }

    /// After calls ended: audio follows, then their media leaves the engine (never under a lock).
    func finish(_ removed: [MediaBinding]) {
        reconcileAudio()
        guard let engine else { return }
        for binding in removed { try? engine.removeCall(binding.engineID, sayingGoodbye: true) }
    }

    /// The ring time passed: the system ends the call as unanswered by performing an end
    /// action (so the app tells its signalling); the call ends when that action completes,
    /// however it completes. The ringing stops at once.
    func ringTimeElapsed(_ uuid: UUID) {
        state.withLock { state in
            guard let record = state.calls[uuid], record.isRinging else { return }
            state.calls[uuid]!.systemEndReason = .unanswered
            state.systemActions += 1
            take(EndCallAction(call: uuid), &state)
        }
        reconcileAudio()
    }

    /// The mute authority's one entry point: records `mute` and applies it to the media.
    func setMute(_ uuid: UUID, _ mute: MuteState, _ state: inout State) {
        state.calls[uuid]!.mute = mute
        if let binding = state.calls[uuid]!.media { apply(state.calls[uuid]!, to: binding) }
        publish(state, state.calls[uuid]!.observed())
    }

    /// Makes the media do what the call record says (hold, mute).
    func apply(_ record: CallRecord, to binding: MediaBinding) {
        binding.media.isHeld = record.isOnHold
        binding.media.isMuted = record.mute.isMuted
    }

    /// Queues key presses on `media`; what does not fit in its queue is dropped (counted by
    /// nothing yet — the queue holds 16 presses).
    static func send(_ digits: [UInt8], to media: CallMedia) {
        for digit in digits {
            guard let event = DTMFEvent(rawValue: digit) else { continue }
            try? media.sendDTMF(event)
        }
    }
}

extension CallAction {
    /// Fails a pending action because its call ended (it can no longer be done); a completed
    /// one stays as it is. The app's `fail()` afterwards is accepted, its `fulfill()` refused.
    func endWithCall() {
        runtime.withLock { runtime in
            guard runtime.state == .pending else { return }
            runtime.state = .failed
            runtime.endedWithCall = true
            runtime.timer?.cancel()
            runtime.timer = nil
        }
    }
}
