// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Calls
import Foundation
import PushRegistry
import Testing

/// Issue 23 row 3: `CXProvider.reportNewIncomingVoIPPushPayload(_:completion:)` as Apple
/// documents it — a payload decrypted outside PushKit is handed to the app's push delegate as
/// a VoIP push, the app reports the call from it, and the caller learns whether it was.
@Suite(.timeLimit(.minutes(1))) struct VoIPPushPayloadReportTests {
    /// The decrypting side, as an iOS notification service extension writes it.
    static func decryptedCall(session: String) -> [AnyHashable: Any] {
        ["callerNumber": "+4930555", "sessionId": session, "senderName": "Bob", "callType": "audio"]
    }

    @Test func aDecryptedPayloadBecomesAReportedCall() async throws {
        let harness = try PushHarness()
        let app = AppDelegate(provider: harness.provider)
        harness.registry.delegate = app
        harness.settle()
        try await harness.provider.reportNewIncomingVoIPPushPayload(Self.decryptedCall(session: "e2ee-1"))
        let call = try #require(harness.queue.sync { app.sessions["e2ee-1"] })
        let observed = try #require(harness.provider.liveCalls.first { $0.uuid == call })
        #expect(observed.remoteHandle == CallHandle(kind: .phoneNumber, value: "+4930555") && observed.localizedCallerName == "Bob")
        #expect(harness.registry.statistics.reportedInTime == 1 && harness.registry.statistics.violations == 0)
    }

    @Test func whatIsNotReportedSaysWhy() async throws {
        let harness = try PushHarness(behaviour: .ignore)
        await #expect(throws: VoIPPushReportError.notReported) {
            try await harness.provider.reportNewIncomingVoIPPushPayload(Self.decryptedCall(session: "x"))
        }
        #expect(harness.registry.statistics.violations == 1, "the app's failure is a violation, as for any push")
        await #expect(throws: VoIPPushReportError.invalidPayload) {
            try await harness.provider.reportNewIncomingVoIPPushPayload(["when": Date()])
        }
        await #expect(throws: VoIPPushReportError.invalidPayload) {
            try await harness.provider.reportNewIncomingVoIPPushPayload([1: "not a string key"])
        }
        let alone = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter()))
        await #expect(throws: VoIPPushReportError.noPushRegistry) {
            try await alone.reportNewIncomingVoIPPushPayload(Self.decryptedCall(session: "y"))
        }
        let unregistered = try PushHarness(register: false)
        await #expect(throws: VoIPPushReportError.notDelivered) {
            try await unregistered.provider.reportNewIncomingVoIPPushPayload(Self.decryptedCall(session: "z"))
        }
    }
}
