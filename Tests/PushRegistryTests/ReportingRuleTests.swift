// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
import PushRegistry
import Testing

/// PushKit's reporting rule, from real sequences: a provider, a registry, an app delegate
/// that reports in time, too late, or never.
@Suite(.timeLimit(.minutes(1))) struct ReportingRuleTests {
    @Test func mustReportPushReportedBeforeReturningIsKept() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        let call = harness.push(harness.payload(age: 2))
        let metadata = try #require(harness.delegate.received.first)
        #expect(metadata.mustReport && !metadata.isStale && !metadata.appHadCall)
        #expect(metadata.age == 2)
        #expect(metadata.channel == .inProcess)
        #expect(harness.isLive(call) && harness.provider.isRinging == false, "reported: live (no ringer configured)")
        let statistics = harness.registry.statistics
        #expect(statistics.received == 1 && statistics.delivered == 1 && statistics.mustReport == 1 && statistics.reportedInTime == 1)
        #expect(statistics.violations == 0 && harness.registry.violations.isEmpty)
        #expect(harness.registry.deliveryState == .delivering)
    }

    @Test func reportAfterTheDelegateReturnsIsAViolation() throws {
        let harness = try PushHarness(behaviour: .reportAfterReturning)
        let call = harness.push(harness.payload())
        #expect(harness.isLive(call), "the late report did reach the provider")
        #expect(harness.registry.statistics.violations == 1, "but after the delegate returned: a violation")
        #expect(harness.registry.statistics.reportedInTime == 0)
        let violation = try #require(harness.registry.violations.first)
        #expect(violation.callUUID == call && violation.channel == .inProcess && !violation.hadNoDelegate)
        #expect(violation.deliveredAt == harness.now)
        #expect(harness.registry.deliveryState == .delivering, "one violation is below the limit")
    }

    @Test func violationsStopDeliveryUntilRestart() throws {
        let harness = try PushHarness(configuration: PushRegistryConfiguration(maximumViolations: 2), behaviour: .ignore)
        let first = harness.push(harness.payload())
        #expect(harness.registry.deliveryState == .delivering)
        let second = harness.push(harness.payload())
        #expect(harness.registry.deliveryState == .stopped(violations: 2))
        #expect(harness.registry.violations.map(\.callUUID) == [first, second])
        #expect(harness.delegate.events.filter { if case .stopped = $0 { true } else { false } } == [.stopped(2)], "told once")

        // Stopped: nothing reaches the delegate, every push is counted as dropped.
        let third = harness.push(harness.payload())
        harness.push(harness.payload(cancelled: true))
        #expect(harness.delegate.received.count == 2)
        #expect(!harness.changes.seen(third))
        #expect(harness.registry.statistics.droppedWhileStopped == 2)
        #expect(harness.registry.statistics.violations == 2, "dropped pushes are not more violations")
        #expect(harness.registry.deliveryState == .stopped(violations: 2), "it stays stopped")
        harness.registry.desiredPushTypes = []
        harness.registry.desiredPushTypes = [.voIP]
        #expect(harness.registry.deliveryState == .stopped(violations: 2), "re-registering does not undo it")

        // A restart (a new registry) delivers again.
        let restarted = try PushHarness(behaviour: .reportNow, provider: harness.provider)
        let fourth = restarted.push(restarted.payload())
        #expect(restarted.registry.deliveryState == .delivering)
        #expect(restarted.isLive(fourth))
        #expect(restarted.registry.statistics.reportedInTime == 1)
    }

    @Test func aPushWhileTheAppHasACallNeedNotBeReported() throws {
        let harness = try PushHarness(behaviour: .ignore)
        let existing = UUID()
        try harness.provider.reportNewIncomingCall(with: existing, update: CallUpdate(remoteHandle: CallHandle(kind: .generic, value: "bob")))
        harness.push(harness.payload())
        let metadata = try #require(harness.delegate.received.first)
        #expect(!metadata.mustReport && metadata.appHadCall && !metadata.isStale)
        #expect(harness.registry.statistics.violations == 0)
        #expect(harness.registry.statistics.whileOnCall == 1 && harness.registry.statistics.mustReport == 0)

        // Once that call is over, the next push must be reported again.
        harness.provider.reportCall(with: existing, endedAt: nil, reason: .remoteEnded)
        harness.push(harness.payload())
        #expect(harness.delegate.received.last?.mustReport == true)
        #expect(harness.registry.statistics.violations == 1)
    }

    @Test func stalePushesAreDeliveredWithoutTheObligation() throws {
        let harness = try PushHarness(configuration: PushRegistryConfiguration(freshnessLimit: 30), behaviour: .ignore)
        harness.push(harness.payload(age: 45))
        let stale = try #require(harness.delegate.received.last)
        #expect(stale.isStale && !stale.mustReport && stale.age == 45)
        harness.push(harness.payload(age: 30))
        #expect(harness.delegate.received.last?.isStale == false, "exactly at the limit is still fresh")
        #expect(harness.delegate.received.last?.mustReport == true)
        #expect(harness.registry.statistics.stale == 1 && harness.registry.statistics.violations == 1)
        // A sender clock ahead of ours: age 0, not negative.
        harness.push(harness.payload(age: -5))
        #expect(harness.delegate.received.last?.age == 0)
    }

    @Test func aPushWithoutSendTimeHasNoAgeAndMustBeReported() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        var payload = harness.payload()
        payload.sentAt = nil
        harness.push(payload)
        let metadata = try #require(harness.delegate.received.first)
        #expect(metadata.age == nil && metadata.mustReport)
        #expect(harness.registry.statistics.reportedInTime == 1)
    }

    @Test func expiredPushesAreDroppedAndCounted() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        let expired = harness.push(harness.payload(age: 20, expiresIn: 10))
        #expect(harness.delegate.received.isEmpty && !harness.changes.seen(expired), "never delivered, never reported")
        #expect(harness.registry.statistics.expired == 1 && harness.registry.statistics.violations == 0)
        let live = harness.push(harness.payload(age: 5, expiresIn: 10))
        #expect(harness.isLive(live))
        // An expired cancelled push and an expired unusable one are dropped too.
        harness.push(harness.payload(age: 20, expiresIn: 10, cancelled: true))
        harness.pushRaw(Data(#"{"expiresAt": 1000}"#.utf8))
        #expect(harness.registry.statistics.expired == 3)
        #expect(harness.delegate.handled.isEmpty)
    }

    /// Was `unusablePayloadsAreReportedWithWhatIsKnownThenFailed`: a JSON object without our
    /// `callId`/`handle` used to be reported and ended `failed` by the registry; it is the app's
    /// now (issue 23 row 2: servers key pushes their own way), and only bytes that are not a
    /// JSON object are the registry's.
    @Test func payloadsThatAreNotJSONObjectsAreReportedThenFailed() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        // A handle and a name, no call id: delivered to the app with its dictionary.
        harness.pushRaw(Data(#"{"handle": "+4930999", "handleType": "phoneNumber", "callerName": "Carol"}"#.utf8))
        #expect(harness.delegate.handled.isEmpty && harness.delegate.received.count == 1)

        // Not JSON at all: reported with nothing known.
        harness.pushRaw(Data([0xFF, 0x00, 0x7B]))
        let garbage = try #require(harness.delegate.handled.last)
        #expect(garbage.reason == .unusablePayload(.notJSON) && garbage.fields == PushPayloadFields())
        #expect(harness.changes.endedReason(garbage.callUUID) == .failed)
        // JSON that is not an object: the same.
        harness.pushRaw(Data("[1, 2]".utf8))
        #expect(harness.delegate.handled.last?.reason == .unusablePayload(.notAnObject))

        #expect(harness.registry.statistics.unusable == 2 && harness.registry.statistics.delivered == 1)
        #expect(harness.provider.liveCalls.count == 1, "only the object the app read and reported rings")
    }

    @Test func aCallCancelledBeforeArrivalIsReportedAndEndedAtOnce() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        let call = harness.push(harness.payload(cancelled: true))
        let handled = try #require(harness.delegate.handled.first)
        #expect(handled.reason == .cancelled && handled.callUUID == call)
        let seen = harness.changes.all.filter { $0.uuid == call }
        #expect(seen.count == 2 && !seen[0].hasEnded && seen[1].hasEnded, "reported, then ended: one change each")
        #expect(harness.changes.endedReason(call) == .remoteEnded)
        #expect(!harness.isLive(call) && harness.delegate.received.isEmpty)
        #expect(harness.registry.statistics.cancelled == 1)

        // The signalling cancels a call an earlier push already rang: it ends, remoteEnded.
        let ringing = harness.push(harness.payload())
        #expect(harness.isLive(ringing))
        harness.push(harness.payload(cancelled: true, uuid: ringing))
        #expect(harness.changes.endedReason(ringing) == .remoteEnded && !harness.isLive(ringing))
        #expect(harness.delegate.handled.last?.reportError == .callUUIDAlreadyExists(ringing))
    }

    @Test func anUnusablePushNeverEndsACallTheAppAlreadyHas() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        let call = harness.push(harness.payload())
        // The same call id again, without a handle: the app's to read (while on a call it need
        // not report); the registry ends nothing.
        harness.pushRaw(Data(#"{"callId": "\#(call.uuidString)"}"#.utf8))
        #expect(harness.delegate.handled.isEmpty && harness.delegate.received.last?.mustReport == false)
        #expect(harness.isLive(call) && harness.changes.endedReason(call) == nil)
        #expect(harness.registry.statistics.violations == 0)
    }

    @Test func aRefusedReportStillHonoursThePush() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        harness.provider.settings = CallSystemSettings(doNotDisturb: true)
        let call = harness.push(harness.payload())
        #expect(!harness.isLive(call), "Do Not Disturb refused the call")
        #expect(harness.registry.statistics.violations == 0 && harness.registry.statistics.reportedInTime == 1)
    }

    @Test func withoutRegistrationPushesAreDropped() throws {
        let harness = try PushHarness(behaviour: .reportNow, register: false)
        #expect(harness.registry.deliveryState == .notRegistered)
        let call = harness.push(harness.payload())
        #expect(!harness.changes.seen(call) && harness.delegate.received.isEmpty)
        #expect(harness.registry.statistics.notRegistered == 1)
        harness.registry.desiredPushTypes = [.voIP]
        harness.push(harness.payload())
        #expect(harness.registry.statistics.delivered == 1)
    }

    @Test func aDelegateGoneBeforeDeliveryIsAViolation() throws {
        let harness = try PushHarness(behaviour: .reportNow)
        // The registry holds its delegate weakly: one that went away cannot report.
        let wallClock = harness.wallClock
        let registry = PushRegistry(provider: harness.provider, queue: harness.queue, now: { wallClock.now })
        // The app's queue holds the push until the delegate is gone.
        harness.queue.suspend()
        do {
            let shortLived = RecordingPushDelegate { _, _, _, _ in }
            registry.delegate = shortLived
            registry.desiredPushTypes = [.voIP]
            registry.deliver(jsonPayload: harness.payload().jsonData)
        }
        harness.queue.resume()
        harness.settle()
        #expect(registry.statistics.violations == 1, "\(registry.statistics)")
        #expect(registry.violations.first?.hadNoDelegate == true)
    }

    @Test func credentialsAreAnnouncedAtEveryStartRotationAndInvalidation() throws {
        let harness = try PushHarness()
        let first = try #require(harness.delegate.credentials.first)
        #expect(first.channel == .inProcess && first.type == .voIP && first.token.count == 32)
        #expect(harness.registry.pushToken(for: .voIP) == first.token)
        #expect(harness.registry.credentials(on: .unifiedPush) == nil, "no endpoint yet")

        harness.registry.rotateInProcessToken()
        harness.settle()
        let rotated = try #require(harness.delegate.credentials.last)
        #expect(harness.delegate.credentials.count == 2 && rotated.token != first.token && rotated.token.count == 32)

        harness.registry.desiredPushTypes = []
        harness.settle()
        #expect(harness.delegate.events.last == .invalidated(.inProcess))
        #expect(harness.registry.pushToken(for: .voIP) == nil)
        harness.registry.desiredPushTypes = [.voIP]
        harness.settle()
        #expect(harness.delegate.credentials.count == 3 && harness.delegate.credentials.last?.token == rotated.token,
                "re-registering announces the token again")

        // Another start of the app: a new registry announces its credentials too.
        let restarted = try PushHarness(provider: harness.provider)
        #expect(restarted.delegate.credentials.count == 1)
        #expect(first.hexToken.count == 64 && first.hexToken.allSatisfy(\.isHexDigit))
    }
}
