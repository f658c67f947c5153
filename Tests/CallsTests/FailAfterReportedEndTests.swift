// SPDX-License-Identifier: Apache-2.0
@testable import Calls
import Foundation
import Testing

/// Row 6 of issue 23: the app's error path as iOS code writes it — the signalling failed, so
/// it reports the call ended `.failed` and then fails the pending action (or the other way
/// round). Both orders end the same way: the call once, `failed`; the action `failed`; no throw.
@Suite struct FailAfterReportedEndTests {
    /// What an iOS delegate does when its SIP answer fails: report the end, then fail the action.
    static func signallingFailed(_ provider: CallProvider, _ action: AnswerCallAction) throws {
        provider.reportCall(with: action.callUUID, endedAt: Date(), reason: .failed)
        try action.fail()
    }

    @Test func reportingTheEndThenFailingTheActionIsAccepted() throws {
        let harness = try Harness(respond: { _ in nil })
        let call = try harness.incoming()
        try harness.request(AnswerCallAction(call: call))
        let answer = try #require(harness.delegate.pending.first as? AnswerCallAction)

        try Self.signallingFailed(harness.provider, answer)
        harness.delegate.settle()

        #expect(answer.state == .failed && answer.endedWithCall)
        #expect(harness.changes.endedReason(call) == .failed && harness.changes.endings(call) == 1)
        #expect(throws: ActionError.alreadyCompleted, "one fail is taken, not two") { try answer.fail() }
        #expect(throws: ActionError.callEnded, "a fulfil after the end reached no call") { try answer.fulfill() }
        #expect(harness.provider.pendingActions.isEmpty && harness.clock.pendingTimers == 0)
        #expect(!harness.audioRuns)
    }

    @Test func failingTheActionThenReportingTheEndEndsTheSameWay() throws {
        let harness = try Harness(respond: { _ in nil })
        let call = try harness.incoming()
        try harness.request(AnswerCallAction(call: call))
        let answer = try #require(harness.delegate.pending.first as? AnswerCallAction)

        try answer.fail()
        harness.provider.reportCall(with: call, endedAt: Date(), reason: .failed)
        harness.delegate.settle()

        #expect(answer.state == .failed && !answer.endedWithCall)
        #expect(harness.changes.endedReason(call) == .failed && harness.changes.endings(call) == 1)
    }
}
