// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A file only its owner can read, written whole: for the SDP files, which hold our key.
///
/// The bytes go to a new file beside the target, created mode 0600 by `mkstemp` (exclusive,
/// a name nobody can have planted), so no other user can open it from its first byte on; it
/// is then renamed over `path`, so a peer waiting for `path` sees nothing or all of it.
enum OwnerOnlyFile {
    /// Writes `bytes` to `path`.
    ///
    /// - Parameter beforeWriting: called with the new file's descriptor after it is created
    ///   and before its first byte is written (tests look at its mode there).
    /// - Returns: nil, or what failed (`"rename: Permission denied"`).
    static func write(_ bytes: [UInt8], to path: String, beforeWriting: ((Int32) -> Void)? = nil) -> String? {
        var template = Array((path + ".XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return "create \(path).XXXXXX: \(String(cString: strerror(errno)))" }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        beforeWriting?(descriptor)
        var failure = writeAll(bytes, to: descriptor)
        if close(descriptor) != 0 && failure == nil { failure = "close: \(String(cString: strerror(errno)))" }
        if failure == nil && rename(temporary, path) != 0 { failure = "rename: \(String(cString: strerror(errno)))" }
        if failure != nil { unlink(temporary) }
        return failure
    }

    /// Writes all of `bytes` to `descriptor` (retrying short writes and interruptions).
    ///
    /// - Returns: nil, or what failed.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> String? {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return "write: \(String(cString: strerror(errno)))"
            }
            offset += written
        }
        return nil
    }
}
