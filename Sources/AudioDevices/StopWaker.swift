internal import CVoiceShims
internal import Glibc
import SystemErrors

/// The descriptor that ends a stream's `poll` at once when `stop()` is asked for: an eventfd
/// (non-blocking, close-on-exec) that the I/O loop polls after every PCM descriptor, and that
/// `signal()` makes readable for good (it is never drained: a stopping loop must not wait again).
final class StopWaker: Sendable {
    /// The eventfd.
    let fileDescriptor: Int32

    /// Opens the eventfd.
    /// - Throws: `ALSAError` naming `eventfd` (e.g. `EMFILE` when the process is out of descriptors).
    init(device: String) throws(ALSAError) {
        let descriptor = ve_eventfd_open()
        guard descriptor >= 0 else { throw ALSAError(function: "eventfd", status: descriptor, device: device) }
        fileDescriptor = descriptor
    }

    deinit { Glibc.close(fileDescriptor) }

    /// What the loop polls: readable once `signal()` was called.
    var pollDescriptor: PollDescriptor { PollDescriptor(fileDescriptor: fileDescriptor, events: .input) }

    /// Makes the descriptor readable. Safe from any thread, any number of times.
    func signal() {
        var one: UInt64 = 1
        // An eventfd write fails only when the counter would overflow (EAGAIN): it is readable then.
        _ = withUnsafeBytes(of: &one) { Glibc.write(fileDescriptor, $0.baseAddress, 8) }
    }
}
