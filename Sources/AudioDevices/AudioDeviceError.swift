// SPDX-License-Identifier: Apache-2.0
internal import CALSA
public import SystemErrors

/// A device that failed, whatever kind of device it is (`AudioDeviceStream`,
/// `AudioDeviceBackend`, `AudioDeviceEvent.deviceLost`): which operation, the errno it came
/// to, on which device, and why.
///
/// ALSA's failures arrive as `init(_:)` of their `ALSAError` and read as it does ("snd_pcm_open
/// failed on hw:1,0: Device or resource busy (-EBUSY = -16)"); another backend names its own
/// operation and may give its own explanation.
public struct AudioDeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The operation that failed, e.g. `snd_pcm_open`, `pthread_create`, `pw_stream_connect`.
    public var operation: String
    /// What it came to, as a positive errno (ALSA's own codes beyond errno, from 500000, keep
    /// their number).
    public var code: Errno
    /// The device it was done on.
    public var device: String
    /// The backend's own explanation; nil for the errno's text.
    public var detail: String?

    /// An error for `operation` failing with `code` on `device`, explained by `detail` or
    /// else by the code's text.
    public init(operation: String, code: Errno, device: String, detail: String? = nil) {
        self.operation = operation
        self.code = code
        self.device = device
        self.detail = detail
    }

    /// The same failure, from ALSA's call layer.
    public init(_ error: ALSAError) {
        self.init(operation: error.function, code: error.code, device: error.device)
    }

    /// Why, in words: `detail`, or the code's text (ALSA's `snd_strerror`, which is the C
    /// library's for plain errno values and knows ALSA's own codes).
    public var reason: String { detail ?? String(cString: snd_strerror(-code.rawValue)) }

    /// What failed, where and why, with the negated errno, e.g.
    /// "snd_pcm_writei failed on default: Broken pipe (-EPIPE = -32)".
    public var description: String {
        "\(operation) failed on \(device): \(reason) (\(code.name.map { "-\($0) = " } ?? "")\(-code.rawValue))"
    }
}
