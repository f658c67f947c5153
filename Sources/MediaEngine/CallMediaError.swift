import JitterBuffer
import RTP
import SRTP

/// Why a call's media could not be set up.
public enum CallMediaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The configuration was refused.
    case configuration(MediaConfigurationError)
    /// The encoder could not be set up.
    case pipeline(MediaPipelineError)
    /// The jitter buffer refused its configuration.
    case jitterBuffer(JitterBufferError)
    /// SRTP could not be set up with the keys given.
    case srtp(SRTPError)

    public var description: String {
        switch self {
        case let .configuration(error): return error.description
        case let .pipeline(error): return "pipeline: \(error)"
        case let .jitterBuffer(error): return "jitter buffer: \(error)"
        case let .srtp(error): return "SRTP: \(error)"
        }
    }
}
