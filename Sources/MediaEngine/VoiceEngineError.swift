// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Transport

/// Why a `VoiceEngine` refused a request.
public enum VoiceEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A configuration value no engine could run with.
    case configuration(MediaConfigurationError)
    /// The device could not be opened or started.
    case device(AudioDeviceError)
    /// A thread could not be created.
    case threadCreationFailed(String)
    /// A socket call failed (the network thread's poller, a traffic-class mark).
    case socket(SocketError)
    /// The call is already in this engine.
    case callAlreadyAdded
    /// No call with this identifier is in the engine.
    case unknownCall(EngineCallID)
    /// The engine holds `maximum` calls already (`MixerConfiguration.maximumCalls`).
    case tooManyCalls(maximum: Int)
    /// The call runs at another rate or frame duration than the engine's mixer.
    case callFormatMismatch(callSampleRate: Int, callFrameDurationMs: Int, engineSampleRate: Int, engineFrameDurationMs: Int)
    /// The engine was shut down.
    case shutDown
    /// Device I/O was asked to start outside an audio session's activation
    /// (`VoiceEngineConfiguration.requiresAudioSession`).
    case sessionNotActive
    /// The request is valid only while device I/O is stopped.
    case audioRunning
    /// The call's keying and its transport disagree: a call keyed by a DTLS handshake needs
    /// `CallTransport.dtls` and RTCP on the RTP port, and a transport with DTLS needs a call
    /// made with `MediaProtection.srtpKeyedByHandshake`. The string says which.
    case keyingMismatch(String)
    /// The DTLS association could not be set up.
    case dtls(DTLSError)
    /// The transport is not one the engine can run: it needs an RTP socket or an ICE agent,
    /// not both or neither, and no RTCP socket beside an ICE agent.
    case invalidTransport(String)

    public var description: String {
        switch self {
        case let .configuration(error): return "engine configuration: \(error)"
        case let .device(error): return "audio device: \(error)"
        case let .threadCreationFailed(which): return "could not create the \(which) thread"
        case let .socket(error): return "socket: \(error)"
        case .callAlreadyAdded: return "the call is already in the engine"
        case let .unknownCall(id): return "no \(id) in the engine"
        case let .tooManyCalls(maximum): return "the engine holds its maximum of \(maximum) calls"
        case let .callFormatMismatch(callRate, callFrame, engineRate, engineFrame):
            return "the call runs at \(callRate) Hz / \(callFrame) ms, the engine at \(engineRate) Hz / \(engineFrame) ms"
        case .shutDown: return "the engine was shut down"
        case .sessionNotActive: return "device I/O starts and stops only inside an activation of the engine's audio session (requiresAudioSession): activate the session, or start audio in didActivate"
        case .audioRunning: return "device I/O runs: stop it first"
        case let .keyingMismatch(why): return "keying: \(why)"
        case let .dtls(error): return "\(error)"
        case let .invalidTransport(why): return "transport: \(why)"
        }
    }
}
