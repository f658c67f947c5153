// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Where `--output` puts the recording: a regular file voicecall may overwrite, or a name
/// nothing holds yet in a directory it can write.
///
/// Anything else at that name is not ours to overwrite or replace: a symbolic link (planted
/// in /tmp, pointing at another file of ours or, for root, anyone's), a FIFO a reader waits
/// on, `/dev/null` (replaced by a regular file for every program when run as root, as it
/// once was). So those are refused before the call starts, with what the name is. The check
/// itself opens and creates nothing, so a call that then fails leaves the name as it was
/// (the recording's file is made only when media arrives, `RealCallRecording`).
enum RecordingDestination {
    /// Refuses `path` unless it is a regular file we may write, or a free name in a writable
    /// directory.
    ///
    /// - Throws: `.file` naming what `path` is (exit 7).
    static func check(_ path: String) throws(RealCallFailure) {
        var status = stat()
        if lstat(path, &status) != 0 {
            guard errno == ENOENT else { throw refusal(path, String(cString: strerror(errno))) }
            // The file will be created there.
            var directory = stat()
            let parent = parentDirectory(path)
            guard stat(parent, &directory) == 0, directory.st_mode & S_IFMT == S_IFDIR, access(parent, W_OK | X_OK) == 0 else {
                throw refusal(path, "the directory is missing or not writable")
            }
        } else {
            switch status.st_mode & S_IFMT {
            case S_IFREG:
                guard access(path, W_OK) == 0 else { throw refusal(path, "it is not writable") }
            case S_IFLNK:
                throw refusal(path, "it is a symbolic link; name the file itself (a recording goes only to a regular file)")
            case S_IFIFO:
                throw refusal(path, "it is a FIFO; a recording is written as a regular file")
            case S_IFCHR, S_IFBLK:
                throw refusal(path, "it is a device; a recording is written as a regular file")
            case S_IFDIR:
                throw refusal(path, "it is a directory")
            default:
                throw refusal(path, "it is not a regular file")
            }
        }
    }

    private static func refusal(_ path: String, _ reason: String) -> RealCallFailure {
        .file("cannot write --output \(path): \(reason)")
    }

    /// The directory part of `path` (`.` for a bare name, `/` for a name at the root).
    private static func parentDirectory(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = path[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }
}
