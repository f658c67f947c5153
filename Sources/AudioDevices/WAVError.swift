// SPDX-License-Identifier: Apache-2.0
/// Why a WAV file could not be read or written.
public enum WAVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened, read or written (`errno`-style reason from Foundation).
    case io(path: String, reason: String)
    /// The data is not a RIFF/WAVE file, or a chunk runs past the end.
    case malformed(String)
    /// The format is valid WAV but not one this reader handles (only PCM 16-bit and
    /// IEEE float 32-bit, 1–8 channels).
    case unsupportedFormat(String)

    public var description: String {
        switch self {
        case let .io(path, reason): return "WAV I/O failed for \(path): \(reason)"
        case let .malformed(detail): return "malformed WAV: \(detail)"
        case let .unsupportedFormat(detail): return "unsupported WAV format: \(detail)"
        }
    }
}
