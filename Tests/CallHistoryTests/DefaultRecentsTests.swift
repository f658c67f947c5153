// SPDX-License-Identifier: Apache-2.0
import AudioSession
import CallHistory
import Calls
import Foundation
import Testing

/// Row 12 of issue 23: `includesCallsInRecents = true` as iOS code sets it records every call in
/// the app's own recents store — no CallHistory or recorder for the app to build — under
/// `$XDG_DATA_HOME/<app>/recents.sqlite` (here a temporary directory, never the real home).
@Suite struct DefaultRecentsTests {
    static func dataHome(_ name: String) -> String {
        (temporaryDatabase(name) as NSString).deletingLastPathComponent + "/data"
    }

    @Test func callsGoToThePerAppStoreWhenTheConfigurationIncludesThem() throws {
        let dataHome = Self.dataHome("default-recents")
        var configuration = ProviderConfiguration()
        configuration.includesCallsInRecents = true
        let recents = try CallHistoryRecents(appName: "org.example.phone", environment: ["XDG_DATA_HOME": dataHome, "HOME": "/nonexistent"])
        let provider = try CallProvider(configuration: configuration,
                                        audio: CallAudioSystem(center: AudioSessionCenter(), recents: recents), clock: ManualCallClock())
        let delegate = FulfillingDelegate()
        provider.setDelegate(delegate, queue: delegate.queue)
        let controller = CallController(provider: provider)

        let call = UUID()
        try provider.reportNewIncomingCall(with: call, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: "+442079460000")))
        try controller.requestTransaction(with: AnswerCallAction(call: call))
        delegate.settle()
        try controller.requestTransaction(with: EndCallAction(call: call))
        delegate.settle()
        let missed = UUID()
        try provider.reportNewIncomingCall(with: missed, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: "+4930123")))
        provider.reportCall(with: missed, endedAt: nil, reason: .remoteEnded)
        provider.recents?.flush()

        let path = dataHome + "/org.example.phone/recents.sqlite"
        #expect(recents.path == path)
        let history = try CallHistory(path: path)
        let entries = try history.recent()
        #expect(Set(entries.map(\.id)) == [call, missed])
        #expect(entries.first { $0.id == call }?.endedReason == .local)
        #expect(try history.missed().map(\.id) == [missed])
    }

    @Test func noRecentsWhenTheConfigurationLeavesThemOut() throws {
        let dataHome = Self.dataHome("no-recents")
        var configuration = ProviderConfiguration()
        configuration.includesCallsInRecents = false
        let recents = try CallHistoryRecents(appName: "org.example.phone", environment: ["XDG_DATA_HOME": dataHome])
        let provider = try CallProvider(configuration: configuration,
                                        audio: CallAudioSystem(center: AudioSessionCenter(), recents: recents), clock: ManualCallClock())
        try provider.reportNewIncomingCall(with: UUID(), update: CallUpdate())
        #expect(provider.recents == nil)
        #expect(!FileManager.default.fileExists(atPath: recents.path), "nothing is written, not even an empty store")
    }

    @Test func theStorePathIsPerAppAndConfigurable() throws {
        #expect(try CallHistoryRecents.defaultPath(appName: "phone", environment: ["XDG_DATA_HOME": "/data/u"]) == "/data/u/phone/recents.sqlite")
        #expect(try CallHistoryRecents.defaultPath(appName: "phone", environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"])
            == "/home/u/.local/share/phone/recents.sqlite", "XDG: a relative XDG_DATA_HOME is ignored")
        #expect(throws: CallHistoryError.noDataDirectory) { try CallHistoryRecents.defaultPath(appName: "phone", environment: [:]) }
        for bad in ["", ".hidden", "a/b"] {
            #expect(throws: CallHistoryError.invalidAppName(bad)) { try CallHistoryRecents.defaultPath(appName: bad, environment: ["HOME": "/h"]) }
        }
        let chosen = temporaryDatabase("chosen")
        #expect(CallHistoryRecents(path: chosen).location == chosen)
    }

    @Test func aStoreThatCannotBeOpenedRefusesTheProvider() throws {
        let file = temporaryDatabase("blocked")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("not a directory".utf8)))
        let recents = CallHistoryRecents(path: file + "/recents.sqlite")
        #expect(throws: CallProviderError.self) {
            try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter(), recents: recents))
        }
    }
}
