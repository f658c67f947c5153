// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
import PushRegistry
import Testing

/// An app that reports each push's call under a UUID of its own (issue 23 row 9), keeping its
/// own map from the server's call id, and hears about cancels in `didHandle`.
final class OwnUUIDApp: AppBase, PushRegistryDelegate {
    let provider: CallProvider
    var callsByServerID: [UUID: UUID] = [:]
    var cancelled: [HandledVoIPPush] = []

    init(provider: CallProvider) { self.provider = provider }

    func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType) {}
    func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel) {}

    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType,
                      completion: @escaping @Sendable () -> Void) {
        guard let push = payload.voipPayload else { return completion() }
        let uuid = UUID()
        callsByServerID[push.callUUID] = uuid
        try? provider.reportNewIncomingCall(with: uuid, update: push.callUpdate)
        completion()
    }

    func pushRegistry(_ registry: PushRegistry, didHandle push: HandledVoIPPush) {
        cancelled.append(push)
    }
}

@Suite(.timeLimit(.minutes(1))) struct CancelPushTests {
    /// Row 9: the cancel push ends the call the app reported under its own UUID (it used to
    /// keep ringing while the registry ended only the payload's id), and reaches the delegate
    /// naming the call it ended.
    @Test func aCancelEndsTheCallTheAppReportedUnderItsOwnUUID() throws {
        let harness = try PushHarness()
        let app = OwnUUIDApp(provider: harness.provider)
        harness.registry.delegate = app
        harness.settle()
        let push = harness.payload()
        harness.push(push)
        let own = try #require(harness.queue.sync { app.callsByServerID[push.callUUID] })
        #expect(harness.isLive(own) && harness.registry.statistics.reportedInTime == 1)

        harness.push(harness.payload(cancelled: true, uuid: push.callUUID))
        #expect(!harness.isLive(own) && harness.changes.endedReason(own) == .remoteEnded, "nothing rings on")
        #expect(harness.provider.liveCalls.isEmpty)
        #expect(!harness.changes.seen(push.callUUID), "the payload's id was never reported as a second call")
        let handled = try #require(harness.queue.sync { app.cancelled.last })
        #expect(handled.reason == .cancelled && handled.callUUID == push.callUUID && handled.endedCallUUIDs == [own])
        #expect(harness.registry.statistics.cancelled == 1 && harness.registry.statistics.violations == 0)
    }

    /// A cancel for a push never seen is still reported and ended (APPLE-MODEL: the call is
    /// reported, then ended remoteEnded), and says so.
    @Test func aCancelForAnUnknownPushIsReportedAndEnded() throws {
        let harness = try PushHarness()
        let call = harness.push(harness.payload(cancelled: true))
        let handled = try #require(harness.delegate.handled.last)
        #expect(handled.endedCallUUIDs == [call] && harness.changes.endedReason(call) == .remoteEnded)
    }
}
