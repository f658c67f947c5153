// SPDX-License-Identifier: Apache-2.0
internal import COpus

/// A failure reported by libopus or detected by this module before calling libopus.
///
/// Carries the libopus status ``code`` (with its C name, such as `OPUS_BAD_ARG`), the
/// ``function`` or control request that failed (for example
/// `"opus_encoder_ctl(OPUS_SET_COMPLEXITY)"`), and, for failures detected in Swift, a
/// ``detail`` that says what was wrong with the input.
public struct OpusError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// A libopus status code (`OPUS_BAD_ARG`, `OPUS_BUFFER_TOO_SMALL`, …).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric libopus status (always negative for errors).
        public let rawValue: Int

        /// Wraps a numeric libopus status.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `OPUS_BAD_ARG` (-1): an argument was invalid or out of range.
        public static let badArgument = Code(rawValue: Int(OPUS_BAD_ARG))
        /// `OPUS_BUFFER_TOO_SMALL` (-2): the output buffer cannot hold the result.
        public static let bufferTooSmall = Code(rawValue: Int(OPUS_BUFFER_TOO_SMALL))
        /// `OPUS_INTERNAL_ERROR` (-3): an internal libopus error.
        public static let internalError = Code(rawValue: Int(OPUS_INTERNAL_ERROR))
        /// `OPUS_INVALID_PACKET` (-4): the compressed data is corrupt or malformed.
        public static let invalidPacket = Code(rawValue: Int(OPUS_INVALID_PACKET))
        /// `OPUS_UNIMPLEMENTED` (-5): the request is not implemented.
        public static let unimplemented = Code(rawValue: Int(OPUS_UNIMPLEMENTED))
        /// `OPUS_INVALID_STATE` (-6): the encoder or decoder state is invalid.
        public static let invalidState = Code(rawValue: Int(OPUS_INVALID_STATE))
        /// `OPUS_ALLOC_FAIL` (-7): libopus could not allocate memory.
        public static let allocationFailed = Code(rawValue: Int(OPUS_ALLOC_FAIL))

        /// The C name of the code, such as `"OPUS_BAD_ARG"`.
        public var name: String {
            switch rawValue {
            case Int(OPUS_BAD_ARG): "OPUS_BAD_ARG"
            case Int(OPUS_BUFFER_TOO_SMALL): "OPUS_BUFFER_TOO_SMALL"
            case Int(OPUS_INTERNAL_ERROR): "OPUS_INTERNAL_ERROR"
            case Int(OPUS_INVALID_PACKET): "OPUS_INVALID_PACKET"
            case Int(OPUS_UNIMPLEMENTED): "OPUS_UNIMPLEMENTED"
            case Int(OPUS_INVALID_STATE): "OPUS_INVALID_STATE"
            case Int(OPUS_ALLOC_FAIL): "OPUS_ALLOC_FAIL"
            default: "OPUS_UNKNOWN_ERROR(\(rawValue))"
            }
        }

        /// The C name and numeric value, such as `"OPUS_BAD_ARG (-1)"`.
        public var description: String { "\(name) (\(rawValue))" }
    }

    /// The libopus status code.
    public let code: Code
    /// The libopus function or control request that failed, or the Swift API that rejected
    /// its input before calling libopus (for example `"OpusEncoder.init"`).
    public let function: String
    /// What was wrong, when the failure was detected in Swift; `nil` for plain libopus failures.
    public let detail: String?

    /// Creates an error for `code` raised by `function`.
    public init(code: Code, function: String, detail: String? = nil) {
        self.code = code
        self.function = function
        self.detail = detail
    }

    /// Creates an error from a raw libopus status returned by `function`.
    init(status: Int32, function: String) {
        self.init(code: Code(rawValue: Int(status)), function: function)
    }

    /// The C name of the code, such as `"OPUS_INVALID_PACKET"`.
    public var name: String { code.name }

    /// libopus's own explanation of the code (`opus_strerror`).
    public var message: String { String(cString: opus_strerror(Int32(clamping: code.rawValue))) }

    /// For example `"opus_decode failed: OPUS_INVALID_PACKET (-4), corrupted stream"`.
    public var description: String {
        var text = "\(function) failed: \(code), \(message)"
        if let detail { text += ": \(detail)" }
        return text
    }
}
