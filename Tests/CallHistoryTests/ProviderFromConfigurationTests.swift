// SPDX-License-Identifier: Apache-2.0
import AudioSession
import CallHistory
import Calls
import Foundation
import MediaEngine
import Testing

/// iOS apps make their provider once at launch from a configuration alone and reach their
/// session with `AVAudioSession.sharedInstance()` (issue 23, row 10): the same one-liners here,
/// the engine, session, ringer and recents made for the provider.
@Suite struct ProviderFromConfigurationTests {
    @Test func aProviderFromItsConfigurationAlone() throws {
        var configuration = ProviderConfiguration(localizedName: "Softphone")
        configuration.includesCallsInRecents = false    // the test leaves the user's own recents alone
        let provider = try CallProvider(configuration: configuration)
        defer { provider.invalidate() }
        #expect(provider.configuration.localizedName == "Softphone")
        // The app's shared session is the calls' session: what the app sets on it is the call's.
        #expect(provider.audioSession === AudioSession.sharedInstance())
        try AudioSession.sharedInstance().setCategory(.playAndRecord, mode: .voiceChat, options: [.allowBluetoothHFP])
        #expect(provider.audioSession.categoryOptions.contains(.allowBluetoothHFP))
        // One engine per process, gated by the session.
        let first = try CallAudioSystem.processDefault(for: configuration)
        let second = try CallAudioSystem.processDefault(for: configuration)
        let engine = try #require(first.media as? VoiceEngine)
        #expect(engine === second.media as? VoiceEngine)
        #expect(engine.configuration.requiresAudioSession && !engine.isRunning)
        #expect(first.recents == nil && first.ringer == nil, "no recents asked for, no ringtone configured")
    }

    @Test func recentsAreTheAppsOwnByDefault() throws {
        let data = NSTemporaryDirectory() + "voiceengine-provider-\(getpid())-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: data) }
        let configuration = ProviderConfiguration()    // includesCallsInRecents: true, as CallKit's
        let system = try CallAudioSystem.processDefault(for: configuration, environment: ["XDG_DATA_HOME": data])
        let recents = try #require(system.recents as? CallHistoryRecents)
        #expect(recents.path == data + "/\(ProcessInfo.processInfo.processName)/recents.sqlite")
        #expect(throws: CallProviderError.self, "no data directory to keep them in") {
            try CallAudioSystem.processDefault(for: configuration, environment: [:])
        }
    }
}
