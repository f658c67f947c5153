// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking
import Synchronization

/// Where an engine's events go: its `AsyncStream`, and the handler the application set, on
/// the queue it gave (as `CXProvider.setDelegate(_:queue:)` delivers). Posting allocates and
/// may take a lock: the network thread posts, and the audio thread only on fault paths.
final class EngineEventSink: Sendable {
    private struct Handler {
        let queue: DispatchQueue
        let body: @Sendable (VoiceEngineEvent) -> Void
    }

    private let continuation: AsyncStream<VoiceEngineEvent>.Continuation
    private let handler = Locked<Handler?>(nil)
    private let observer = Locked<(@Sendable (VoiceEngineEvent) -> Void)?>(nil)
    /// Further synchronous observers by token (a call provider's), beside the session's.
    private let observers = Locked<(next: Int, bodies: [Int: @Sendable (VoiceEngineEvent) -> Void])>((0, [:]))

    init(continuation: AsyncStream<VoiceEngineEvent>.Continuation) {
        self.continuation = continuation
    }

    /// Delivers `event` to the stream and to the handler.
    func post(_ event: VoiceEngineEvent) {
        continuation.yield(event)
        if let observer = observer.withLock({ $0 }) { observer(event) }
        for body in observers.withLock({ Array($0.bodies.values) }) { body(event) }
        if let handler = handler.withLock({ $0 }) {
            handler.queue.async { handler.body(event) }
        }
    }

    /// Sets (or with nil clears) the handler and its queue.
    func setHandler(queue: DispatchQueue, _ body: (@Sendable (VoiceEngineEvent) -> Void)?) {
        handler.withLock { $0 = body.map { Handler(queue: queue, body: $0) } }
    }

    /// Sets (or with nil clears) the observer called synchronously with every event.
    func setObserver(_ body: (@Sendable (VoiceEngineEvent) -> Void)?) {
        observer.withLock { $0 = body }
    }

    /// Adds an observer called synchronously with every event; returns its token.
    func addObserver(_ body: @escaping @Sendable (VoiceEngineEvent) -> Void) -> Int {
        observers.withLock { state in
            defer { state.next += 1 }
            state.bodies[state.next] = body
            return state.next
        }
    }

    /// Removes the observer `token` named.
    func removeObserver(_ token: Int) {
        observers.withLock { _ = $0.bodies.removeValue(forKey: token) }
    }

    /// Ends the stream.
    func finish() { continuation.finish() }
}
