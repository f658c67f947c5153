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
    /// Calls `observer` (on any thread; it must not call back into the host) with what
    /// becomes of each call's media connection — keyed, ICE connected or failed, DTLS failed or
    /// closed — and returns a token to stop it with; nil for a host that tells nothing.
    func observeMediaConnections(_ observer: @escaping @Sendable (EngineCallID, MediaConnectionState) -> Void) -> Int?
    /// Stops the observation `token` named.
    func stopObservingMediaConnections(_ token: Int)
}

extension CallMediaHost {
    /// Tells nothing: a host without connection events.
    public func observeMediaConnections(_ observer: @escaping @Sendable (EngineCallID, MediaConnectionState) -> Void) -> Int? { nil }
    /// Nothing to stop.
    public func stopObservingMediaConnections(_ token: Int) {}
}

extension VoiceEngine: CallMediaHost {
    /// `configuration.requiresAudioSession`.
    public var startsOnlyThroughSession: Bool { configuration.requiresAudioSession }

    /// From the engine's events: `dtlsConnected`, `iceStateChanged`, `dtlsFailed`, `dtlsClosed`.
    public func observeMediaConnections(_ observer: @escaping @Sendable (EngineCallID, MediaConnectionState) -> Void) -> Int? {
        addEventObserver { event in
            switch event {
            case let .iceStateChanged(id, .checking): observer(id, .connecting)
            case let .iceStateChanged(id, .failed): observer(id, .failed)
            case let .dtlsConnected(id, _, _): observer(id, .connected)
            case let .dtlsFailed(id, _): observer(id, .failed)
            case let .dtlsClosed(id): observer(id, .closed)
            default: break
            }
        }
    }

    /// Removes the engine observer.
    public func stopObservingMediaConnections(_ token: Int) { removeEventObserver(token) }
}
