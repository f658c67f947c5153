// SPDX-License-Identifier: Apache-2.0
import AudioSession
@testable import Calls
import Foundation
import Testing

/// The flows apps built on CallKit live by, on fake I/O and the manual clock: what the
/// delegate is told, in which order, and what the call and ringtone sessions do.
@Suite(.timeLimit(.minutes(1))) struct CallFlowTests {
    @Test func incomingRingsAnswerActivatesAfterFulfilEndDeactivates() throws {
        let harness = try Harness(respond: { $0 is AnswerCallAction ? nil : .fulfill })
        let call = try harness.incoming()
        #expect(harness.provider.isRinging && harness.ringer.isRunningIO, "an incoming call rings")
        #expect(harness.provider.ringtoneSession.isActive)
        #expect(!harness.audioRuns)

        try harness.request(AnswerCallAction(call: call))
        #expect(!harness.ringer.isRunningIO, "answering stops the ringing")
        #expect(!harness.audioRuns, "no audio before the answer is fulfilled")
        let answer = try #require(harness.delegate.pending.first as? AnswerCallAction)
        try answer.fulfill(withDateConnected: Date())
        harness.delegate.settle()
        #expect(harness.audioRuns, "fulfilling the answer activates the call's session")
        #expect(harness.call(call)?.hasConnected == true)
        #expect(throws: ActionError.alreadyCompleted) { try answer.fulfill() }
        #expect(throws: ActionError.alreadyCompleted) { try answer.fail() }

        try harness.request(EndCallAction(call: call))
        #expect(!harness.audioRuns)
        #expect(harness.provider.liveCalls.isEmpty)
        #expect(harness.changes.endedReason(call) == .local)
        #expect(harness.delegate.events == [.began, .perform("answer", call), .activated, .perform("end", call), .deactivated])
        #expect(harness.clock.pendingTimers == 0, "no timer outlives the call")
    }

    @Test func failedAnswerEndsTheCallAsFailedWithoutAudio() throws {
        let harness = try Harness(respond: { $0 is AnswerCallAction ? .fail : .fulfill })
        let call = try harness.incoming()
        try harness.request(AnswerCallAction(call: call))
        #expect(harness.changes.endedReason(call) == .failed)
        #expect(!harness.audioRuns && !harness.ringer.isRunningIO)
        #expect(harness.io.starts == 0, "the engine never started")
        #expect(!harness.delegate.events.contains(.activated))
    }

    @Test func outgoingStartActivatesThenConnects() throws {
        let harness = try Harness()
        let call = try harness.outgoing()
        #expect(harness.audioRuns, "start fulfilled: audio for ringback and early media")
        #expect(harness.call(call)?.isOutgoing == true)
        #expect(harness.call(call)?.hasStartedConnecting == false)
        harness.provider.reportOutgoingCall(with: call, startedConnectingAt: nil)
        #expect(harness.call(call)?.hasStartedConnecting == true)
        #expect(harness.call(call)?.hasConnected == false)
        harness.provider.reportOutgoingCall(with: call, connectedAt: nil)
        #expect(harness.call(call)?.hasConnected == true)
        harness.provider.reportCall(with: call, endedAt: nil, reason: .remoteEnded)
        harness.delegate.settle()
        #expect(harness.changes.endedReason(call) == .remoteEnded)
        #expect(!harness.audioRuns)
        #expect(harness.delegate.events == [.began, .perform("start", call), .activated, .deactivated])
    }

    @Test func answeringASecondCallHoldsTheFirstAndSwapsBack() throws {
        let harness = try Harness()
        let first = try harness.incoming()
        try harness.request(AnswerCallAction(call: first))
        let second = try harness.incoming()
        #expect(!harness.ringer.isRunningIO, "no ringtone over a call (the call session does not mix)")
        try harness.request(AnswerCallAction(call: second))
        #expect(harness.call(first)?.isOnHold == true, "the system held the first call")
        #expect(harness.call(second)?.isOnHold == false)
        #expect(harness.audioRuns)
        // Swap: resuming the first holds the second.
        try harness.request(SetHeldCallAction(call: first, onHold: false))
        #expect(harness.call(first)?.isOnHold == false)
        #expect(harness.call(second)?.isOnHold == true)
        #expect(harness.delegate.events.filter { $0 == .activated }.count == 1, "audio never dropped during the swap")
        #expect(harness.delegate.events.contains(.perform("setHeld", first)))
        // Holding the only unheld call deactivates; resuming activates again.
        try harness.request(SetHeldCallAction(call: first, onHold: true))
        #expect(!harness.audioRuns)
        try harness.request(SetHeldCallAction(call: second, onHold: false))
        #expect(harness.audioRuns)
        #expect(harness.delegate.events.filter { $0 == .activated }.count == 2)
    }

    @Test func answeringASecondCallEndsTheFirstWhenItCannotHold() throws {
        let harness = try Harness()
        let first = try harness.incoming(CallUpdate(supportsHolding: false))
        try harness.request(AnswerCallAction(call: first))
        let second = try harness.incoming()
        try harness.request(AnswerCallAction(call: second))
        #expect(harness.changes.endedReason(first) == .local)
        #expect(harness.call(second)?.hasConnected == true)
        #expect(harness.audioRuns)
        #expect(harness.delegate.events.firstIndex(of: .perform("end", first))! < harness.delegate.events.firstIndex(of: .perform("answer", second))!)
    }

    @Test func aCallBeyondTheGroupLimitIsRefusedAsBusy() throws {
        let harness = try Harness()
        try harness.request(AnswerCallAction(call: try harness.incoming()))
        try harness.incoming()
        let error = #expect(throws: IncomingCallError.self) { try harness.incoming() }
        #expect(error == .maximumCallGroupsReached(maximum: 2))
        #expect(error?.isBusy == true)
        #expect(error?.code.rawValue == 7)
        #expect(harness.provider.liveCalls.count == 2, "the refused call is not shown")
        #expect(throws: RequestTransactionError.maximumCallGroupsReached(maximum: 2)) { try harness.outgoing() }
    }

    @Test func systemFiltersRefuseBeforeTheAppSeesTheCall() throws {
        let harness = try Harness()
        let blocked = CallHandle(kind: .phoneNumber, value: "+1555")
        harness.provider.settings = CallSystemSettings(blockList: [blocked])
        #expect(throws: IncomingCallError.filteredByBlockList(blocked)) { try harness.incoming(CallUpdate(remoteHandle: blocked)) }
        harness.provider.settings = CallSystemSettings(doNotDisturb: true)
        let error = #expect(throws: IncomingCallError.self) { try harness.incoming() }
        #expect(error?.code == .filteredByDoNotDisturb && error?.isBusy == false)
        let uuid = UUID()
        harness.provider.settings = CallSystemSettings()
        try harness.provider.reportNewIncomingCall(with: uuid, update: CallUpdate())
        #expect(throws: IncomingCallError.callUUIDAlreadyExists(uuid)) { try harness.provider.reportNewIncomingCall(with: uuid, update: CallUpdate()) }
        #expect(!harness.ringer.isRunningIO || harness.provider.liveCalls.count == 1)
    }

    @Test func transactionsAreValidatedBeforeAnythingRuns() throws {
        let harness = try Harness(respond: { _ in nil })
        let ringing = try harness.incoming()
        let outgoing = try harness.outgoing()
        let before = harness.delegate.actions.count
        #expect(throws: RequestTransactionError.emptyTransaction) { try harness.controller.request(CallTransaction()) }
        let stranger = UUID()
        #expect(throws: RequestTransactionError.unknownCallUUID(stranger)) {
            // The first action is valid: nothing of the transaction may run.
            try harness.request(SetMutedCallAction(call: outgoing, muted: true), EndCallAction(call: stranger))
        }
        #expect(throws: RequestTransactionError.callUUIDAlreadyExists(outgoing)) {
            try harness.request(StartCallAction(call: outgoing, handle: CallHandle(kind: .generic, value: "x")))
        }
        let invalid: [CallAction] = [AnswerCallAction(call: outgoing), SetHeldCallAction(call: ringing, onHold: true),
                                     PlayDTMFCallAction(call: outgoing, digits: "12x"), PlayDTMFCallAction(call: outgoing, digits: ""),
                                     SetGroupCallAction(call: outgoing, groupWith: outgoing)]
        for action in invalid {
            let error = #expect(throws: RequestTransactionError.self) { try harness.request(action) }
            #expect(error?.code == .invalidAction, "\(action)")
        }
        let ending = EndCallAction(call: outgoing)
        #expect(throws: RequestTransactionError.unknownCallUUID(outgoing)) {
            try harness.request(ending, SetHeldCallAction(call: outgoing, onHold: true))
        }
        #expect(harness.delegate.actions.count == before, "no refused transaction reached the delegate")
        #expect(harness.call(outgoing)?.mute.isMuted == false)
        // An action is requested once.
        try harness.request(ending)
        #expect(throws: RequestTransactionError.invalidAction(reason: "\(ending) was requested before")) { try harness.request(ending) }
        #expect(RequestTransactionError.Code.maximumCallGroupsReached.rawValue == 7)
        #expect(RequestTransactionError.Code.unknownCallUUID.rawValue == 4)
    }

    @Test func actionsTimeOutOnTheClockAndRefuseLaterCompletion() throws {
        var timeouts = ActionTimeouts()
        timeouts.answer = 3
        let harness = try Harness(configuration: ProviderConfiguration(timeouts: timeouts), respond: { _ in nil })
        let call = try harness.incoming()
        try harness.request(AnswerCallAction(call: call))
        let answer = try #require(harness.delegate.pending.first)
        #expect(answer.timeoutDate == 3)
        harness.advance(2.9)
        #expect(answer.state == .pending)
        harness.advance(0.2)
        #expect(answer.state == .timedOut)
        #expect(throws: ActionError.timedOut) { try answer.fulfill() }
        #expect(harness.delegate.events.contains(.timedOut("answer", call)))
        #expect(harness.changes.endedReason(call) == .failed, "a timed-out answer fails the call")
        #expect(!harness.audioRuns && harness.io.starts == 0)
    }

    @Test func unansweredCallsEndAfterTheRingTime() throws {
        let harness = try Harness(respond: { _ in nil })
        let call = try harness.incoming()
        harness.advance(59.9)
        #expect(harness.ringer.isRunningIO && harness.delegate.actions.isEmpty)
        harness.advance(0.1)
        #expect(!harness.ringer.isRunningIO, "the ringing stops at the ring time")
        let end = try #require(harness.delegate.pending.first as? EndCallAction, "the system performs an end action for the app's signalling")
        #expect(end.callUUID == call)
        try end.fulfill()
        harness.delegate.settle()
        #expect(harness.changes.endedReason(call) == .unanswered)

        // An app that never completes the end action: the call ends anyway, unanswered.
        let ignored = try harness.incoming()
        harness.advance(60)
        harness.advance(5)
        #expect(harness.changes.endedReason(ignored) == .unanswered)
        #expect(harness.provider.liveCalls.isEmpty && harness.provider.pendingActions.isEmpty)
    }

    @Test func resetEndsEveryCallVoidsActionsAndTearsAudioDown() throws {
        let harness = try Harness(respond: { $0 is StartCallAction ? .fulfill : nil })
        let active = try harness.outgoing()
        let ringing = try harness.incoming()
        try harness.request(SetMutedCallAction(call: active, muted: true))
        let mute = try #require(harness.delegate.pending.first)
        harness.provider.reset()
        harness.delegate.settle()
        #expect(harness.changes.endedReason(active) == .failed && harness.changes.endedReason(ringing) == .failed)
        #expect(!harness.audioRuns && !harness.ringer.isRunningIO)
        #expect(mute.state == .failed && mute.endedWithCall, "the system failed the action its call could no longer take")
        #expect(throws: ActionError.callEnded) { try mute.fulfill() }
        #expect(Array(harness.delegate.events.suffix(2)) == [.deactivated, .reset])
        #expect(harness.clock.pendingTimers == 0)
        // The provider lives on.
        try harness.outgoing()
        #expect(harness.audioRuns)
    }

    @Test func invalidateEndsEveryCallAsFailedAndRefusesEverything() throws {
        let harness = try Harness()
        let call = try harness.outgoing()
        harness.provider.invalidate()
        harness.delegate.settle()
        #expect(harness.changes.endedReason(call) == .failed)
        #expect(!harness.audioRuns)
        #expect(throws: IncomingCallError.providerInvalidated) { try harness.incoming() }
        #expect(throws: RequestTransactionError.unknownCallProvider) { try harness.outgoing() }
    }

    @Test func muteAuthorityRecordsWhoAndNeverPingPongs() throws {
        let harness = try Harness()
        let call = try harness.outgoing()
        try harness.request(SetMutedCallAction(call: call, muted: true, origin: .user))
        #expect(harness.call(call)?.mute == MuteState(isMuted: true, changedBy: .user))
        let performed = harness.delegate.actions.count
        // The app's UI, told of the user's mute, asks for it again: nothing happens, nobody is called.
        let echo = SetMutedCallAction(call: call, muted: true, origin: .app)
        try harness.request(echo)
        #expect(echo.state == .fulfilled)
        #expect(harness.delegate.actions.count == performed, "the echo never reached the delegate")
        #expect(harness.call(call)?.mute.changedBy == .user, "the user's change stands")
        harness.provider.reportCall(with: call, muted: false, by: .remote)
        #expect(harness.call(call)?.mute == MuteState(isMuted: false, changedBy: .remote))
        try harness.request(SetMutedCallAction(call: call, muted: true))
        #expect(harness.call(call)?.mute == MuteState(isMuted: true, changedBy: .app))
    }

    @Test func groupsFollowTheLimits() throws {
        let harness = try Harness(configuration: ProviderConfiguration(maximumCallsPerCallGroup: 2))
        let first = try harness.outgoing()
        let second = try harness.outgoing()
        #expect(harness.call(first)?.isOnHold == true, "starting a call holds the active one")
        try harness.request(SetGroupCallAction(call: second, groupWith: first), SetHeldCallAction(call: first, onHold: false))
        #expect(harness.call(second)?.group == harness.call(first)?.group)
        #expect(harness.call(first)?.isOnHold == false && harness.call(second)?.isOnHold == false, "a group talks together")
        try harness.request(SetHeldCallAction(call: first, onHold: true))
        #expect(harness.call(first)?.isOnHold == true && harness.call(second)?.isOnHold == true, "and is held together")
        try harness.request(SetHeldCallAction(call: second, onHold: false))
        #expect(harness.call(first)?.isOnHold == false && harness.call(second)?.isOnHold == false, "and resumed together")
        let third = try harness.outgoing()
        #expect(throws: RequestTransactionError.maximumCallGroupsReached(maximum: 2)) {
            try harness.request(SetGroupCallAction(call: third, groupWith: first))
        }
        #expect(throws: RequestTransactionError.maximumCallGroupsReached(maximum: 2)) {
            try harness.request(SetGroupCallAction(call: second, groupWith: nil))
        }
        try harness.request(EndCallAction(call: third), SetGroupCallAction(call: second, groupWith: nil))
        #expect(harness.call(second)?.group == second)
    }

    @Test func configurationDefaultsAndRingtoneValidation() throws {
        let configuration = ProviderConfiguration()
        #expect(configuration.maximumCallGroups == 2 && configuration.maximumCallsPerCallGroup == 5)
        #expect(configuration.includesCallsInRecents && !configuration.supportsVideo)
        #expect(configuration.timeouts.unanswered == 60)
        #expect(throws: ProviderConfigurationError.ringtoneNotFound(path: "/nonexistent/ring.wav")) {
            try ProviderConfiguration(ringtonePath: "/nonexistent/ring.wav")
        }
        let garbage = NSTemporaryDirectory() + "calls-not-a-wav-\(getpid()).wav"
        try Data("not a wav file".utf8).write(to: URL(fileURLWithPath: garbage))
        let error = #expect(throws: ProviderConfigurationError.self) { try ProviderConfiguration(ringtonePath: garbage) }
        guard case .ringtoneNotPlayable(garbage, _) = error else { Issue.record("got \(String(describing: error))"); return }
        var timeouts = ActionTimeouts()
        timeouts.end = 0
        #expect(throws: ProviderConfigurationError.invalidTimeout(name: "timeouts.end", value: 0)) { try ProviderConfiguration(timeouts: timeouts) }
        #expect(throws: ProviderConfigurationError.invalidLimit(name: "maximumCallGroups", value: 0)) { try ProviderConfiguration(maximumCallGroups: 0) }
        #expect(CallEndedReason.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect(IncomingCallError.Code.filteredByBlockList.rawValue == 4)
        #expect(PlayDTMFCallAction.ActionType.hardPause.rawValue == 3 && CallHandle.Kind.emailAddress.rawValue == 3)
        #expect(CallErrorCode.missingVoIPBackgroundMode.rawValue == 3)
    }

    @Test func anInterruptionDeactivatesAndItsEndActivatesAgain() throws {
        let harness = try Harness()
        let call = try harness.outgoing()
        #expect(harness.audioRuns)
        let siren = AudioSession(name: "siren", priority: AudioSession.Priority(rawValue: 300), center: harness.center)
        try siren.setCategory(.playback)
        try siren.setActive(true)
        // Until the event came, for up to 30 s (a bound for a hang, not a time to beat).
        func waitFor(_ count: Int, _ event: RecordingDelegate.Event) -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                harness.delegate.settle()
                if harness.delegate.events.filter({ $0 == event }).count >= count { return true }
                usleep(5_000)
            }
            return false
        }
        #expect(waitFor(1, .deactivated), "the interruption stopped the call's media: didDeactivate")
        #expect(!harness.io.isRunningIO && !harness.provider.isCallAudioActive)
        // While interrupted, changes to the call do not fight the interrupter for the audio.
        try harness.request(SetMutedCallAction(call: call, muted: true))
        #expect(!harness.io.isRunningIO && harness.call(call) != nil, "the call lives on, silent")
        try siren.setActive(false, options: .notifyOthersOnDeactivation)
        #expect(waitFor(2, .activated), "the interruption ended: the session is active again")
        #expect(harness.audioRuns)
    }

    @Test func asyncFormsAndTheObserverStream() async throws {
        let harness = try Harness()
        let observer = CallObserver(provider: harness.provider)
        let uuid = UUID()
        try await harness.provider.reportNewIncomingCall(with: uuid, update: CallUpdate())
        await #expect(throws: IncomingCallError.callUUIDAlreadyExists(uuid)) {
            try await harness.provider.reportNewIncomingCall(with: uuid, update: CallUpdate())
        }
        try await harness.controller.request(CallTransaction(action: AnswerCallAction(call: uuid)))
        harness.delegate.settle()
        harness.provider.reportCall(with: uuid, endedAt: nil, reason: .answeredElsewhere)
        var seen: [ObservedCall] = []
        for await change in observer.changes {
            seen.append(change)
            if change.hasEnded { break }
        }
        #expect(seen.first?.hasConnected == false && seen.contains { $0.hasConnected })
        #expect(seen.last?.endedReason == .answeredElsewhere)
        #expect(observer.calls.isEmpty)
    }

    @Test func anActivationTheDeviceRefusesFailsTheCallInsteadOfRunningItMute() throws {
        let harness = try Harness()
        harness.io.state.withLock { $0.failNextStart = .cannotStartPlaying(reason: "the device is gone") }
        let call = try harness.outgoing()
        #expect(harness.changes.endedReason(call) == .failed)
        #expect(!harness.audioRuns && !harness.delegate.events.contains(.activated))
        #expect(harness.provider.liveCalls.isEmpty && harness.provider.pendingActions.isEmpty)
        // The next call gets its audio.
        try harness.outgoing()
        #expect(harness.audioRuns)
    }
}
