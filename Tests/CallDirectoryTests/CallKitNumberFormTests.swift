// SPDX-License-Identifier: Apache-2.0
import AudioSession
import CallDirectory
import Calls
import Foundation
import Testing

/// Row 13 of issue 23: phone numbers as iOS sample code writes them — the extension adds
/// `CXCallDirectoryPhoneNumber`s (country code first, no "+": 18005551234) and the app reports
/// `CXHandle(type: .phoneNumber, value: "18005551234")` — block and identify with the
/// directory's default filter, no normaliser configured.
@Suite struct CallKitNumberFormTests {
    /// An extension as the CallKit template writes it.
    struct SpamExtension: CallDirectoryProvider {
        func beginRequest(with context: CallDirectoryContext) {
            let blocked: [Int64] = [1_800_555_1234, 1_800_555_5678]
            for number in blocked { context.addBlockingEntry(withNextSequentialPhoneNumber: number) }
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 1_877_555_0000, label: "Pizza Place")
            context.completeRequest()
        }
    }

    @Test func theDocumentedFormBlocksAndIdentifiesByDefault() throws {
        let directory = try CallDirectoryManager(storePath: temporaryDirectory("callkit-form") + "/directory.store",
                                                 provider: SpamExtension(), isEnabled: true)
        try directory.reload()
        let provider = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter()),
                                        clock: ManualCallClock())
        provider.incomingCallFilter = directory.filter()

        let spam = CallHandle(kind: .phoneNumber, value: "18005551234")
        #expect(throws: IncomingCallError.filteredByBlockList(spam)) {
            try provider.reportNewIncomingCall(with: UUID(), update: CallUpdate(remoteHandle: spam))
        }
        let spamWithPlus = CallHandle(kind: .phoneNumber, value: "+1 800 555 5678")
        #expect(throws: IncomingCallError.filteredByBlockList(spamWithPlus)) {
            try provider.reportNewIncomingCall(with: UUID(), update: CallUpdate(remoteHandle: spamWithPlus))
        }

        let pizza = UUID()
        try provider.reportNewIncomingCall(with: pizza, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: "18775550000")))
        #expect(provider.liveCalls.first { $0.uuid == pizza }?.localizedCallerName == "Pizza Place")

        let friend = UUID()
        try provider.reportNewIncomingCall(with: friend, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: "14155550100")))
        #expect(provider.liveCalls.contains { $0.uuid == friend && $0.localizedCallerName == nil })
    }

    @Test func theDefaultNormaliserReadsCallKitsForm() throws {
        let callKit = PhoneNumberNormalizer()
        #expect(try callKit.normalize("18005551234").value == 1_800_555_1234)
        #expect(try callKit.normalize("442079460000") == callKit.normalize("+44 20 7946 0000"))
        #expect(throws: PhoneNumberError.missingCountryCode, "a trunk prefix marks a national number") { try callKit.normalize("020 7946 0000") }
    }
}
