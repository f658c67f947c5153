// SPDX-License-Identifier: Apache-2.0
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
    /// No `telephone-event` payload type was negotiated, so key presses cannot be sent.
    case telephoneEventsNotNegotiated
    /// A key press cannot be sent as asked, because of the reason given.
    case invalidKeyPress(String)
    /// Key presses are queued faster than they are sent (16 wait at most).
    case keyPressQueueFull
    /// The call has installed every translator it may (`capacity` over its life).
    case tooManyTranslators(capacity: Int)

    public var description: String {
        switch self {
        case let .configuration(error): return error.description
        case let .pipeline(error): return "pipeline: \(error)"
        case let .jitterBuffer(error): return "jitter buffer: \(error)"
        case let .srtp(error): return "SRTP: \(error)"
        case .telephoneEventsNotNegotiated: return "no telephone-event payload type was negotiated: key presses cannot be sent"
        case let .invalidKeyPress(reason): return "key press refused: \(reason)"
        case .keyPressQueueFull: return "16 key presses are already waiting to be sent"
        case let .tooManyTranslators(capacity): return "the call has used all of its \(capacity) translator slots"
        }
    }
}
