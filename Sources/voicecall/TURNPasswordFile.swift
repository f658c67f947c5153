// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The TURN password of `--turn-password-file FILE`: read from a file because argv is public
/// (`ps`, /proc/PID/cmdline). One trailing newline is dropped (`echo secret > FILE` writes one);
/// the password itself is never printed.
enum TURNPasswordFile {
    /// The longest password taken, in bytes (`ICEConfiguration`'s limit for libnice).
    static let maximumBytes = 512

    /// Why the file gives no password.
    enum Failure: Error, Equatable, CustomStringConvertible {
        /// It cannot be opened or read (the system's reason).
        case unreadable(path: String, reason: String)
        /// It holds nothing (or only a newline).
        case empty(path: String)
        /// It holds more than `maximumBytes` (read no further).
        case tooLong(path: String)
        /// It holds a NUL byte, which no C string (libnice's) can carry.
        case containsNUL(path: String)

        var description: String {
            switch self {
            case let .unreadable(path, reason): return "--turn-password-file \(path) cannot be read: \(reason)"
            case let .empty(path): return "--turn-password-file \(path) is empty: it must hold the TURN password"
            case let .tooLong(path): return "--turn-password-file \(path) holds more than \(TURNPasswordFile.maximumBytes) bytes: not a TURN password"
            case let .containsNUL(path): return "--turn-password-file \(path) holds a NUL byte: not a TURN password"
            }
        }
    }

    /// The password in the file at `path`.
    static func read(_ path: String) throws(Failure) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        // One byte more than allowed (and a newline) tells a long file from one at the limit.
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 2)
        var count = 0
        while count < bytes.count {
            let read = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if read < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if read == 0 { break }
            count += read
        }
        var password = bytes[0..<count]
        if password.last == 0x0A { password = password.dropLast() }
        if password.last == 0x0D { password = password.dropLast() }
        guard !password.isEmpty else { throw .empty(path: path) }
        guard password.count <= maximumBytes else { throw .tooLong(path: path) }
        guard !password.contains(0) else { throw .containsNUL(path: path) }
        return String(decoding: password, as: UTF8.self)
    }
}
