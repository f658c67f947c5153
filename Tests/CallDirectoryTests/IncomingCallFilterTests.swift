// SPDX-License-Identifier: Apache-2.0
import AudioSession
import CallDirectory
import Calls
import Foundation
import Testing

/// The directory wired into incoming calls: a blocked caller is refused with
/// `filteredByBlockList` (the call never exists), an identified one gets its label as the
/// caller name unless the app gave one, a disabled directory changes nothing.
@Suite struct IncomingCallFilterTests {
    @Test func blockedAndIdentifiedCallers() throws {
        let path = temporaryDirectory("filter") + "/directory.store"
        let directory = try CallDirectoryManager(storePath: path, provider: ClosureProvider { context in
            context.addBlockingEntry(withNextSequentialPhoneNumber: 1_800_555_1234)
            context.addIdentificationEntry(withNextSequentialPhoneNumber: 44_20_7946_0000, label: "Dentist")
            context.completeRequest()
        }, isEnabled: true)
        try directory.reload()
        let provider = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter()),
                                        clock: ManualCallClock())
        provider.incomingCallFilter = directory.filter(normalizer: PhoneNumberNormalizer(defaultPlan: .unitedKingdom))
        func phone(_ value: String, kind: CallHandle.Kind = .phoneNumber) -> CallHandle { CallHandle(kind: kind, value: value) }

        let blocked = phone("+1 (800) 555-1234")
        #expect(throws: IncomingCallError.filteredByBlockList(blocked)) {
            try provider.reportNewIncomingCall(with: UUID(), update: CallUpdate(remoteHandle: blocked))
        }
        #expect(IncomingCallError.filteredByBlockList(blocked).code.rawValue == 4)
        #expect(throws: IncomingCallError.self) {
            try provider.reportNewIncomingCall(with: UUID(), update: CallUpdate(remoteHandle: phone("tel:+18005551234", kind: .generic)))
        }
        #expect(provider.liveCalls.isEmpty, "a filtered call never exists")

        let identified = UUID()
        try provider.reportNewIncomingCall(with: identified, update: CallUpdate(remoteHandle: phone("020 7946 0000")))
        #expect(provider.liveCalls.first { $0.uuid == identified }?.localizedCallerName == "Dentist")

        let named = UUID()
        try provider.reportNewIncomingCall(with: named, update: CallUpdate(remoteHandle: phone("+44 20 7946 0000"), localizedCallerName: "Dr Who"))
        #expect(provider.liveCalls.first { $0.uuid == named }?.localizedCallerName == "Dr Who", "the app's own name wins")
        provider.reportCall(with: identified, endedAt: nil, reason: .remoteEnded)
        provider.reportCall(with: named, endedAt: nil, reason: .remoteEnded)

        directory.setEnabled(false)
        let allowed = UUID()
        try provider.reportNewIncomingCall(with: allowed, update: CallUpdate(remoteHandle: blocked))
        #expect(provider.liveCalls.first { $0.uuid == allowed }?.localizedCallerName == nil, "a disabled directory blocks nobody")
        provider.reportCall(with: allowed, endedAt: nil, reason: .remoteEnded)

        directory.setEnabled(true)
        let unknown = UUID()
        try provider.reportNewIncomingCall(with: unknown, update: CallUpdate(remoteHandle: phone("sip:alice@example.org", kind: .generic)))
        #expect(provider.liveCalls.contains { $0.uuid == unknown }, "a handle that is no number passes")
    }
}
