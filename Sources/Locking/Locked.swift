// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// A value behind a POSIX mutex: `Synchronization.Mutex`'s interface, on a lock that
/// ThreadSanitizer understands.
///
/// `Mutex` on Linux is built on atomics and futexes inside the standard library, which is not
/// instrumented, so a ThreadSanitizer run reports every access it protects as a race (a
/// two-thread counter under `Mutex.withLock` is reported too); its reports drowned the real
/// ones. `pthread_mutex_lock` is intercepted, so the ordering a lock gives is seen. Uncontended,
/// both are a compare-and-swap in user space; `withLockIfAvailable` never waits and makes no
/// system call, so the audio thread may use it.
public struct Locked<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// A lock holding `initial`.
    public init(_ initial: consuming Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initial)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock (waiting for it).
    public borrowing func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// Runs `body` with the value if the lock is free right now; nil (nothing run) otherwise.
    /// Never waits: real-time safe.
    public borrowing func withLockIfAvailable<Result: ~Copyable, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
