// SPDX-License-Identifier: Apache-2.0
import AudioSession
import Calls
import Foundation
import MediaEngine

extension CallAudioSystem {
    /// What a provider made from its configuration alone runs on, as CallKit's system gives
    /// it: the app's `AudioSession.sharedInstance()` as the calls' session, the process's one
    /// engine on ALSA's `default` PCM (made on first use, `requiresAudioSession` set), a
    /// ringtone player on `default` when the configuration has a ringtone, and the app's own
    /// recents (`CallHistoryRecents(environment:)`, under the process's name) when it includes
    /// calls in recents.
    /// - Throws: `engine` when the engine cannot be made, `recents` when no per-user data
    ///   directory is known (`$XDG_DATA_HOME` or `$HOME`).
    public static func processDefault(for configuration: ProviderConfiguration,
                                      environment: [String: String] = ProcessInfo.processInfo.environment) throws(CallProviderError) -> CallAudioSystem {
        let engine = try ProcessEngine.shared.get()
        let ringer = configuration.ringtone.map { RingtonePlayer(ringtone: $0) }
        var recents: (any CallRecents)?
        if configuration.includesCallsInRecents {
            do {
                recents = try CallHistoryRecents(environment: environment)
            } catch {
                throw .recents(location: "the per-app data directory", reason: "\(error)")
            }
        }
        return CallAudioSystem(session: .sharedInstance(), media: engine, ringer: ringer, recents: recents)
    }
}

extension CallProvider {
    /// A provider made from its configuration alone (`CXProvider(configuration:)`), on
    /// `CallAudioSystem.processDefault(for:)`: the app's shared session, the process's engine,
    /// its ringtone and its recents, made for it. Make it once, at launch, as iOS apps do.
    /// Tests and apps that wire their own give `init(configuration:audio:)` the system instead.
    /// - Throws: what `processDefault(for:)` and `init(configuration:audio:)` throw.
    public convenience init(configuration: ProviderConfiguration) throws(CallProviderError) {
        try self.init(configuration: configuration, audio: .processDefault(for: configuration))
    }
}

/// The process's one engine for calls: made on first use, shared by every provider made from
/// its configuration alone, alive for the process (as the system's audio is on iOS).
private enum ProcessEngine {
    static let shared = Result<VoiceEngine, CallProviderError> { () throws(CallProviderError) -> VoiceEngine in
        var configuration = VoiceEngineConfiguration()
        configuration.requiresAudioSession = true
        do throws(VoiceEngineError) {
            return try VoiceEngine(configuration: configuration)
        } catch {
            throw .engine(error)
        }
    }
}
