// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Locking
import Synchronization

/// A lock that excludes other threads of this process and other processes: a process-wide
/// lock (`Locked`), and `flock(2)` on a file for the other processes.
///
/// `flock` locks belong to an open file description, so each hold opens the file afresh (two
/// holders in one process then exclude each other too); the lock (`Locked`) makes that certain even
/// where the file cannot be opened (then other processes are not excluded). The descriptor is
/// opened close-on-exec, so a child process (a daemon a test starts) never inherits the lock.
/// Not reentrant: a holder that asks again waits forever.
public final class CrossProcessLock: Sendable {
    /// The lock file (created, mode 0600, if missing; never removed).
    public let path: String
    private let processLock = Locked<Void>(())

    /// A lock on `path`.
    public init(path: String) { self.path = path }

    /// Runs `body` while holding the lock; waits as long as another thread or process holds it.
    public func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        try processLock.withLock { _ throws(Failure) -> Result in
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            defer { if descriptor >= 0 { close(descriptor) } }  // closing releases the flock
            if descriptor >= 0 {
                while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
            }
            return try body()
        }
    }
}
