import Glibc

/// The engine's network thread: a joinable pthread that knows whether it is the caller (an
/// engine released on its own network thread must not join itself).
final class NetworkThreadHandle: @unchecked Sendable {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private let thread: pthread_t

    private init(thread: pthread_t) { self.thread = thread }

    /// Starts `body` on a new thread; nil when pthread_create fails.
    static func spawn(_ body: @escaping @Sendable () -> Void) -> NetworkThreadHandle? {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        return NetworkThreadHandle(thread: thread)
    }

    /// Waits for the thread to end; from the thread itself, lets it end on its own instead.
    func join() {
        if pthread_equal(pthread_self(), thread) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}
