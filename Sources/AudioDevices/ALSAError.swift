#if canImport(Glibc)
import Glibc
#endif
import CALSA

/// An ALSA call that failed: which function, the negative errno it returned, on which device,
/// with ALSA's own explanation (`snd_strerror`).
///
/// `ALSAError(function: "snd_pcm_hw_params_set_rate", code: -22, device: "hw:1,0")`.
public struct ALSAError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The ALSA function that failed, e.g. `snd_pcm_open`.
    public var function: String
    /// Its return value: a negative errno (`-EPIPE`, `-ENODEV`, …).
    public var code: Int32
    /// The PCM or card name it was called on.
    public var device: String

    /// An error for `function` returning `code` on `device`.
    public init(function: String, code: Int32, device: String) {
        self.function = function
        self.code = code
        self.device = device
    }

    /// ALSA's text for `code` (`snd_strerror`).
    public var reason: String { String(cString: snd_strerror(code)) }

    public var description: String { "\(function) failed on \(device): \(reason) (\(code))" }
}
