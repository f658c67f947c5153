// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import Synchronization

/// Counts the `JoinableThread`s started while it is installed on a thread, and the ones those
/// threads start in turn: which of them still run. A test installs one around the code under
/// test and checks that everything it started has ended, exactly, whatever threads the other
/// tests of the process start meanwhile (a count of `/proc/self/task` sees them all).
package final class ThreadCensus: Sendable {
    private let live = Atomic<Int>(0)
    private let started = Atomic<Int>(0)

    package init() {}

    /// Threads counted that have not ended yet.
    package var liveThreads: Int { live.load(ordering: .acquiring) }

    /// Threads counted since the census began.
    package var startedThreads: Int { started.load(ordering: .acquiring) }

    /// Runs `body` with this census installed on the calling thread (the one installed before
    /// is restored after).
    package func counting<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        let previous = Self.current
        Self.install(self)
        defer { Self.install(previous) }
        return try body()
    }

    func threadStarted() {
        started.add(1, ordering: .relaxed)
        live.add(1, ordering: .releasing)
    }

    func threadEnded() { live.subtract(1, ordering: .releasing) }

    /// The census installed on the calling thread, if any.
    static var current: ThreadCensus? {
        pthread_getspecific(key.value).map { Unmanaged<ThreadCensus>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Installs `census` on the calling thread; the thread's slot does not retain it (whoever
    /// installs it, or the `JoinableThread` it counts, keeps it alive).
    static func install(_ census: ThreadCensus?) {
        pthread_setspecific(key.value, census.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    private struct Key: @unchecked Sendable { var value: pthread_key_t }

    private static let key: Key = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return Key(value: key)
    }()
}
