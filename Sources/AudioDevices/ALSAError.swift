// SPDX-License-Identifier: Apache-2.0
internal import CALSA
public import SystemErrors

/// An ALSA call that failed: which function, the errno it returned, on which device, with
/// ALSA's own explanation (`snd_strerror`).
///
/// `ALSAError(function: "snd_pcm_hw_params_set_rate", code: .invalidArgument, device: "hw:1,0")`
/// reads "snd_pcm_hw_params_set_rate failed on hw:1,0: Invalid argument (-EINVAL = -22)".
public struct ALSAError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The ALSA function that failed, e.g. `snd_pcm_open`.
    public var function: String
    /// What it returned, as a positive errno: ALSA returns `-EPIPE`, this holds `.brokenPipe`.
    /// ALSA's own codes beyond errno (from 500000) keep their number.
    public var code: Errno
    /// The PCM or card name it was called on.
    public var device: String

    /// An error for `function` failing with `code` on `device`.
    public init(function: String, code: Errno, device: String) {
        self.function = function
        self.code = code
        self.device = device
    }

    /// An error for `function` returning `status`, ALSA's negated errno, on `device`.
    package init(function: String, status: some BinaryInteger, device: String) {
        self.init(function: function, code: Errno(negatedReturnValue: status), device: device)
    }

    /// ALSA's text for the code (`snd_strerror`; the C library's for plain errno values).
    public var reason: String { String(cString: snd_strerror(-code.rawValue)) }

    /// What failed, where and why, with the value ALSA returned, e.g.
    /// "snd_pcm_writei failed on default: Broken pipe (-EPIPE = -32)".
    public var description: String {
        "\(function) failed on \(device): \(reason) (\(code.name.map { "-\($0) = " } ?? "")\(-code.rawValue))"
    }
}
