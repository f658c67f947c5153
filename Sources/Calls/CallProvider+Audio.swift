// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Foundation

/// The audio the calls need, brought about: the call session is active while a call whose
/// start or answer was fulfilled is not on hold (and stays active while a pending answer,
/// start or resume is about to give a call the audio); the ringtone session is active while
/// a call rings and the call session is not.
extension CallProvider {
    /// Moves the sessions to what the calls need now. Idempotent; serialised by `audio`, so
    /// `didActivate`/`didDeactivate` alternate and follow the order of the changes.
    func reconcileAudio() {
        audio.withLock { audio in
            // Bounded: a failed activation ends calls, which changes what is wanted once.
            for _ in 0..<4 {
                let (wantsCall, wantsRinging) = state.withLock { state in
                    (state.wantsCallAudio || (audio.callActive && state.audioAboutToBeWanted), state.wantsRinging)
                }
                if !wantsCall { audio.interrupted = false }
                let ring = wantsRinging && !wantsCall && hasRinger
                // The ringtone stops before the call's audio starts.
                if audio.ringing && (!ring || wantsCall) {
                    ringtoneSession.deactivate()
                    audio.ringing = false
                }
                if wantsCall != audio.callActive && !(wantsCall && audio.interrupted) {
                    if wantsCall {
                        do {
                            try audioSession.setActive(true)
                        } catch {
                            // No audio for the calls that wanted it: they fail rather than run mute.
                            let removed = state.withLock { state in
                                state.calls.values.filter(\.wantsAudio).flatMap { end($0.uuid, reason: .failed, &state) }
                            }
                            removeFromEngine(removed)
                            continue
                        }
                        audio.callActive = true
                        let session = audioSession
                        state.withLock { state in post(state) { provider, delegate in delegate.provider(provider, didActivate: session) } }
                    } else {
                        // Stop → drain → deactivate happens inside, bounded; the ringtone (if
                        // any) may resume.
                        audioSession.deactivate(options: .notifyOthersOnDeactivation)
                        audio.callActive = false
                        let session = audioSession
                        state.withLock { state in post(state) { provider, delegate in delegate.provider(provider, didDeactivate: session) } }
                    }
                }
                if ring && !audio.ringing && !audio.callActive {
                    // A ringer that cannot start leaves the call silent but ringing in the UI.
                    audio.ringing = (try? ringtoneSession.setActive(true)) != nil
                }
                return
            }
        }
    }

    /// The call session was interrupted (a session of higher priority, the device went
    /// away): media has stopped, so `didDeactivate`; when the interruption ends, the session
    /// is activated again for the calls that still want it (`didActivate`), as iOS does for
    /// CallKit calls. Media services lost and reset are handled the same way: the loss stopped
    /// the session, and after the reset the system side (not the app: it is CallKit's part)
    /// activates it again for the calls still connected. A route change needs nothing here.
    func callSessionEvent(_ event: AudioSessionEvent) {
        switch event {
        case .interruptionBegan, .mediaServicesWereLost:
            audio.withLock { audio in
                guard audio.callActive, !audioSession.isActive else { return }
                audio.callActive = false
                audio.interrupted = true
                let session = audioSession
                state.withLock { state in post(state) { provider, delegate in delegate.provider(provider, didDeactivate: session) } }
            }
        case .interruptionEnded, .mediaServicesWereReset:
            audio.withLock { $0.interrupted = false }
            reconcileAudio()
        case .routeChanged:
            break
        }
    }

    func removeFromEngine(_ removed: [MediaBinding]) {
        guard let engine else { return }
        for binding in removed { try? engine.removeCall(binding.engineID, sayingGoodbye: true) }
    }
}

extension AudioSession {
    /// Deactivation never fails (stop and drain come first); this drops the `throws`.
    func deactivate(options: SetActiveOptions = []) {
        try? setActive(false, options: options)
    }
}
