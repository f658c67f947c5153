// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// A POSIX thread running one closure, to be joined (or detached) once: the engine's network
/// thread and the ALSA streams' I/O threads. A plain pthread rather than Foundation's `Thread`
/// so that the caller owns the join, which ThreadSanitizer follows.
public final class JoinableThread: @unchecked Sendable {
    private final class Box {
        let body: @Sendable () -> Void
        let census: ThreadCensus?
        init(_ body: @escaping @Sendable () -> Void, census: ThreadCensus?) {
            self.body = body
            self.census = census
        }
    }

    private let thread: pthread_t

    private init(thread: pthread_t) { self.thread = thread }

    /// Starts `body` on a new thread; nil when `pthread_create` fails. A `ThreadCensus`
    /// installed on the calling thread counts the new one, and is installed on it in turn.
    public static func spawn(_ body: @escaping @Sendable () -> Void) -> JoinableThread? {
        var thread = pthread_t()
        let census = ThreadCensus.current
        census?.threadStarted()
        let box = Unmanaged.passRetained(Box(body, census: census)).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            if let census = box.census {
                ThreadCensus.install(census)
                defer {
                    ThreadCensus.install(nil)
                    census.threadEnded()
                }
                box.body()
            } else {
                box.body()
            }
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            census?.threadEnded()
            return nil
        }
        return JoinableThread(thread: thread)
    }

    /// Whether the caller is this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Waits for the thread to end; called from the thread itself (an owner released on its
    /// own thread), lets it end on its own instead of deadlocking. Call it, or `detach`, once.
    public func join() {
        if isCurrent {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    /// Lets the thread end on its own (one stuck in a system call keeps what it uses).
    public func detach() { pthread_detach(thread) }
}
