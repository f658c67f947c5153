// SPDX-License-Identifier: Apache-2.0
import AudioSession
import MediaEngine

/// What a provider binds its calls' media to: device I/O that an audio session drives
/// (`AudioSessionIO`) and that mixes calls. `VoiceEngine` is one; a host application with
/// its own audio loop can be another. Given to the provider as `CallAudioSystem(center:media:)`.
public protocol CallMediaHost: AudioSessionIO {
    /// Whether device I/O starts only through the session (`VoiceEngineConfiguration
    /// .requiresAudioSession`): the provider refuses a host that could play before
    /// `didActivate`.
    var startsOnlyThroughSession: Bool { get }
    /// Starts mixing `media`, its packets through `transport`.
    func addCall(_ media: CallMedia, transport: CallTransport) throws(VoiceEngineError) -> EngineCallID
    /// Stops mixing call `id` (with an RTCP BYE when `sayingGoodbye`).
    func removeCall(_ id: EngineCallID, sayingGoodbye: Bool) throws(VoiceEngineError)
}

extension VoiceEngine: CallMediaHost {
    /// `configuration.requiresAudioSession`.
    public var startsOnlyThroughSession: Bool { configuration.requiresAudioSession }
}
