import AudioDevices
import Transport

/// Why a `VoiceEngine` refused a request.
public enum VoiceEngineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A configuration value no engine could run with.
    case configuration(MediaConfigurationError)
    /// The device could not be opened or started.
    case device(ALSAError)
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
        }
    }
}
