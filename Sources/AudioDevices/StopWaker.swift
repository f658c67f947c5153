// SPDX-License-Identifier: Apache-2.0
internal import CEventFD
internal import Glibc
import SystemErrors

/// A one-way signal between threads as a descriptor: an eventfd (non-blocking, close-on-exec)
/// that `signal()` makes readable for good (it is never drained). A stream has two: the stop
/// waker, which the I/O loop polls after every PCM descriptor so `stop()` ends its wait at
/// once, and the exit signal, which the thread raises as it leaves and `stop()` waits on with
/// a deadline before joining.
package final class StopWaker: Sendable {
    /// The eventfd.
    package let fileDescriptor: Int32

    /// Opens the eventfd.
    /// - Throws: `ALSAError` naming `eventfd` (e.g. `EMFILE` when the process is out of descriptors).
    package init(device: String) throws(ALSAError) {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard descriptor >= 0 else { throw ALSAError(function: "eventfd", code: Errno.current, device: device) }
        fileDescriptor = descriptor
    }

    deinit { Glibc.close(fileDescriptor) }

    /// What the loop polls: readable once `signal()` was called.
    package var pollDescriptor: PollDescriptor { PollDescriptor(fileDescriptor: fileDescriptor, events: .input) }

    /// Waits until the descriptor is readable or `timeoutMilliseconds` pass; true when signalled.
    package func wait(timeoutMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        let deadline = MonotonicClock.nanoseconds + Int64(max(timeoutMilliseconds, 0)) * 1_000_000
        while true {
            let left = Int32(clamping: max(0, (deadline - MonotonicClock.nanoseconds) / 1_000_000))
            let ready = poll(&descriptor, 1, left)
            if ready > 0 { return true }
            if ready == 0 || Errno.current != .interrupted { return false }
        }
    }

    /// Makes the descriptor readable. Safe from any thread, any number of times.
    package func signal() {
        var one: UInt64 = 1
        // An eventfd write fails only when the counter would overflow (EAGAIN): it is readable then.
        _ = withUnsafeBytes(of: &one) { Glibc.write(fileDescriptor, $0.baseAddress, 8) }
    }
}
