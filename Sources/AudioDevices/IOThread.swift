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

/// Starts a detached-on-request pthread running `body`.
enum IOThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Spawns the thread; nil if pthread_create failed.
    static func spawn(_ body: @escaping @Sendable () -> Void) -> pthread_t? {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        if status != 0 {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        return thread
    }

    /// Asks for SCHED_FIFO at `priority` for the calling thread; returns 0 or the errno.
    static func makeCurrentRealtime(priority: Int32) -> Int32 {
        var parameters = sched_param()
        parameters.sched_priority = priority
        return pthread_setschedparam(pthread_self(), Int32(SCHED_FIFO), &parameters)
    }
}
