// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// How a stream's I/O runs.
public enum IOThreadMode: Sendable, Hashable {
    /// A pthread that asks for SCHED_FIFO at `priority` and runs at normal priority (noted in
    /// `ALSAStream.isRealtime`) when that is not permitted.
    case realtime(priority: Int32)
    /// A pthread at normal priority.
    case normal
    /// No thread: the caller drives the loop with `ALSAStream.runOnce(timeoutMs:)`.
    case none
}

/// The I/O thread's scheduling (the thread itself is a `Locking.JoinableThread`).
package enum IOThread {
    /// Asks for SCHED_FIFO at `priority` for the calling thread; returns 0 or the errno.
    package static func makeCurrentRealtime(priority: Int32) -> Int32 {
        var parameters = sched_param()
        parameters.sched_priority = priority
        return pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &parameters)
    }
}
