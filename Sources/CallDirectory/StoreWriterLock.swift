// SPDX-License-Identifier: Apache-2.0
import Glibc
import SystemErrors

/// The lock writers of one store take turns under (`flock` on `path.lock`, a file never
/// renamed or removed, so every writer locks the same inode): two processes — or two
/// managers in one — reloading the same store would otherwise write the same `path.new`
/// at once and rename a mixture of both into place. Readers take no lock: a store is
/// replaced by one rename, which they see whole or not at all.
enum StoreWriterLock {
    /// The lock file of the store at `path`.
    static func lockPath(for path: String) -> String { path + ".lock" }

    /// Runs `body` holding the writers' lock of `path`, waiting for another writer to finish
    /// first (`onWait` runs before that wait: tests). The lock goes with the descriptor, so a
    /// writer killed part-way releases it.
    /// - Throws: `system` when the lock file cannot be opened or locked; what `body` throws.
    static func holding<T>(_ path: String, onWait: (() -> Void)? = nil,
                           _ body: () throws(CallDirectoryStoreError) -> T) throws(CallDirectoryStoreError) -> T {
        let lockPath = lockPath(for: path)
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(operation: "open", path: lockPath, .current) }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw .system(operation: "flock", path: lockPath, .current) }
            onWait?()
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else { throw .system(operation: "flock", path: lockPath, .current) }
            }
        }
        return try body()
    }

    /// Runs `body` holding the lock if no other writer holds it now; returns false without
    /// running it otherwise (or when the lock file cannot be opened: a read-only directory).
    @discardableResult
    static func ifFree(_ path: String, _ body: () -> Void) -> Bool {
        let fd = open(lockPath(for: path), O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        body()
        return true
    }
}
