// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Calls
import Dispatch
import Foundation
import Locking
import PushRegistry
import Testing

/// What an app's launch code is built on: an object from a framework or the app's own base
/// class, neither final nor Sendable, with mutable state.
class AppBase {
    var launchCount = 0
}

/// An app delegate as iOS developers write it (issue 23 rows 1, 2 and 11): a class with a
/// superclass and mutable state conforming to the push delegate, reporting from a `Task` and
/// calling `completion()` after, reading the keys its own server sends.
final class AppDelegate: AppBase, PushRegistryDelegate {
    let provider: CallProvider
    /// What the app learnt (mutable, touched on the registry's queue only).
    var voipToken: Data?
    var sessions: [String: UUID] = [:]
    /// How this app reports: from a task after the delegate returned, or never.
    let reportsFromTask: Bool
    let completes: Bool

    init(provider: CallProvider, reportsFromTask: Bool = true, completes: Bool = true) {
        self.provider = provider
        self.reportsFromTask = reportsFromTask
        self.completes = completes
    }

    func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType) {
        voipToken = credentials.token
    }

    func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel) {
        voipToken = nil
    }

    func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType,
                      completion: @escaping @Sendable () -> Void) {
        let callerNumber = payload.dictionaryPayload["callerNumber"] as? String ?? "unknown"
        let sessionID = payload.dictionaryPayload["sessionId"] as? String ?? ""
        let senderName = payload.dictionaryPayload["senderName"] as? String
        let hasVideo = (payload.dictionaryPayload["callType"] as? String) == "video"
        let uuid = UUID()
        sessions[sessionID] = uuid
        let update = CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: callerNumber), localizedCallerName: senderName,
                                hasVideo: hasVideo)
        guard reportsFromTask else {
            if completes { completion() }
            return
        }
        let provider = self.provider
        let completes = self.completes
        Task {
            try? await provider.reportNewIncomingCall(with: uuid, update: update)
            if completes { completion() }
        }
    }
}

/// Waits for the app's tasks (real concurrency) by suspending, so the test frees its thread for
/// them; at most 5 s. Never decides an outcome: the registry's verdict does not depend on when
/// the task ran, only on whether its report came before its `completion()`.
func settled(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<5_000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

@Suite(.timeLimit(.minutes(1))) struct IOSPushPatternTests {
    /// A push keyed the app's own way (no `callId`, no `handle`).
    static let appKeyedPush = Data(#"{"callerNumber":"+4930123456","sessionId":"s-1","senderName":"Alice","callType":"video"}"#.utf8)

    struct Setup {
        let harness: PushHarness
        let app: AppDelegate
    }

    func setUp(reportsFromTask: Bool = true, completes: Bool = true) throws -> Setup {
        let harness = try PushHarness()
        let app = AppDelegate(provider: harness.provider, reportsFromTask: reportsFromTask, completes: completes)
        harness.registry.delegate = app
        harness.settle()
        return Setup(harness: harness, app: app)
    }

    /// Rows 1 and 2: the report from a task before `completion()` counts, every time (the
    /// report precedes the completion whatever the scheduling), and the app reports the call
    /// from its own keys.
    @Test func aReportFromATaskBeforeCompletionCounts() async throws {
        let setup = try setUp()
        let (harness, app) = (setup.harness, setup.app)
        harness.pushRaw(Self.appKeyedPush)
        #expect(await settled { harness.registry.statistics.reportedInTime + harness.registry.statistics.violations == 1 })
        let statistics = harness.registry.statistics
        #expect(statistics.reportedInTime == 1 && statistics.violations == 0)
        #expect(statistics.delivered == 1 && statistics.unusable == 0 && harness.delegate.handled.isEmpty)
        let call = try #require(harness.queue.sync { app.sessions["s-1"] })
        let observed = try #require(harness.provider.liveCalls.first { $0.uuid == call })
        #expect(observed.remoteHandle == CallHandle(kind: .phoneNumber, value: "+4930123456"))
        #expect(observed.localizedCallerName == "Alice" && observed.hasVideo)
        #expect(harness.registry.deliveryState == .delivering)
    }

    /// Row 1: with no call on, every push must be reported — three in a row, each from a task,
    /// none a violation (today about half were, and three stopped delivery).
    @Test func threeTaskReportsInARowKeepDelivery() async throws {
        let setup = try setUp()
        let harness = setup.harness
        for round in 1...3 {
            harness.pushRaw(Self.appKeyedPush)
            #expect(await settled { harness.registry.statistics.reportedInTime == round })
            for call in harness.provider.liveCalls { harness.provider.reportCall(with: call.uuid, endedAt: nil, reason: .remoteEnded) }
        }
        #expect(harness.registry.statistics.violations == 0 && harness.registry.deliveryState == .delivering)
        #expect(harness.registry.statistics.mustReport == 3)
    }

    /// Row 1: a completion handler never called is decided at `completionTimeout` on the
    /// registry's (virtual) clock: a violation when nothing was reported; three stop delivery.
    @Test func aCompletionNeverCalledIsAViolationAfterTheTimeout() throws {
        let setup = try setUp(reportsFromTask: false, completes: false)
        let harness = setup.harness
        let timeout = harness.registry.configuration.completionTimeout
        #expect(timeout == 7)
        harness.pushRaw(Self.appKeyedPush)
        #expect(harness.registry.statistics.violations == 0, "undecided while the app holds the completion")
        harness.clock.advance(by: timeout - 0.001)
        #expect(harness.registry.statistics.violations == 0)
        harness.clock.advance(by: 0.001)
        #expect(harness.registry.statistics.violations == 1 && harness.registry.statistics.completionTimeouts == 1)
        for _ in 0..<2 {
            harness.pushRaw(Self.appKeyedPush)
            harness.clock.advance(by: timeout)
        }
        harness.settle()
        #expect(harness.registry.deliveryState == .stopped(violations: 3))
        #expect(harness.delegate.events.isEmpty == false)
        #expect(harness.clock.pendingTimers == 0, "every window closed, nothing rings")
    }

    /// Row 1: an app that reports and forgets the completion is reported (the call exists),
    /// and the forgotten completion is counted.
    @Test func aReportWithoutCompletionCountsAtTheTimeout() async throws {
        let setup = try setUp(reportsFromTask: true, completes: false)
        let harness = setup.harness
        harness.pushRaw(Self.appKeyedPush)
        #expect(await settled { !harness.provider.liveCalls.isEmpty })
        harness.clock.advance(by: 7)
        #expect(harness.registry.statistics.reportedInTime == 1 && harness.registry.statistics.violations == 0)
        #expect(harness.registry.statistics.completionTimeouts == 1)
    }

    /// Row 1: the returning form stays for synchronous apps: a report before returning counts,
    /// nothing reported by then is a violation at once.
    @Test func theReturningFormJudgesAtReturn() throws {
        final class SynchronousApp: AppBase, PushRegistryDelegate {
            let provider: CallProvider
            var reports = true
            init(provider: CallProvider) { self.provider = provider }
            func pushRegistry(_ registry: PushRegistry, didUpdate credentials: PushCredentials, for type: PushType) {}
            func pushRegistry(_ registry: PushRegistry, didInvalidatePushTokenFor type: PushType, channel: PushChannel) {}
            func pushRegistry(_ registry: PushRegistry, didReceiveIncomingPushWith payload: PushPayload, for type: PushType) {
                guard reports, let number = payload.dictionaryPayload["callerNumber"] as? String else { return }
                try? provider.reportNewIncomingCall(with: UUID(), update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: number)))
            }
        }
        let harness = try PushHarness()
        let app = SynchronousApp(provider: harness.provider)
        harness.registry.delegate = app
        harness.pushRaw(Self.appKeyedPush)
        #expect(harness.registry.statistics.reportedInTime == 1)
        for call in harness.provider.liveCalls { harness.provider.reportCall(with: call.uuid, endedAt: nil, reason: .remoteEnded) }
        harness.queue.sync { app.reports = false }
        harness.pushRaw(Self.appKeyedPush)
        #expect(harness.registry.statistics.violations == 1 && harness.clock.pendingTimers == 0)
    }

    /// Row 2: the dictionary is the JSON object, bounded as the parser bounds every push; the
    /// typed payload stays as the optional decoder.
    @Test func dictionaryPayloadIsTheJSONObjectAndTheTypedPayloadIsOptional() throws {
        let push = try PushPayload(jsonData: Self.appKeyedPush)
        #expect(push.dictionaryPayload["sessionId"] as? String == "s-1" && push.type == .voIP)
        #expect(push.voipPayload == nil)
        #expect(throws: PushPayloadError.missingField("callId")) { try push.decodeVoIPPayload() }
        let typed = VoIPPushPayload(callUUID: UUID(), handle: CallHandle(kind: .generic, value: "bob"))
        #expect(try PushPayload(jsonData: typed.jsonData).voipPayload == typed)
        let big = Data(#"{"pad":""#.utf8) + Data(repeating: 0x61, count: 6_000) + Data(#""}"#.utf8)
        #expect(throws: PushPayloadError.tooLarge(size: big.count, maximum: 5_120)) { try PushPayload(jsonData: big) }
        #expect(throws: PushPayloadError.notAnObject) { try PushPayload(jsonData: Data("[1]".utf8)) }
        #expect(throws: PushPayloadError.notJSON) { try PushPayload(jsonData: Data("{".utf8)) }
    }

    /// Row 11: the delegate's state is the app's own, touched on the app's queue only.
    @Test func aDelegateWithASuperclassGetsItsCallsOnTheAppsQueue() throws {
        let setup = try setUp()
        let token = setup.harness.queue.sync { setup.app.voipToken }
        #expect(token == setup.harness.registry.pushToken(for: .voIP))
        setup.app.launchCount += 1
        #expect(setup.app.launchCount == 1)
    }
}
