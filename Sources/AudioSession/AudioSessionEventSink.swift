// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Locking

/// Where one session's events go: its `AsyncStream` and the handler the app set, on the queue
/// it gave (as VoiceEngine's sink does).
final class AudioSessionEventSink: Sendable {
    private struct Handler {
        let queue: DispatchQueue
        let body: @Sendable (AudioSessionEvent) -> Void
    }

    private let continuation: AsyncStream<AudioSessionEvent>.Continuation
    private let handler = Locked<Handler?>(nil)

    init(continuation: AsyncStream<AudioSessionEvent>.Continuation) {
        self.continuation = continuation
    }

    func post(_ event: AudioSessionEvent) {
        continuation.yield(event)
        if let handler = handler.withLock({ $0 }) {
            handler.queue.async { handler.body(event) }
        }
    }

    func setHandler(queue: DispatchQueue, _ body: (@Sendable (AudioSessionEvent) -> Void)?) {
        handler.withLock { $0 = body.map { Handler(queue: queue, body: $0) } }
    }

    func finish() { continuation.finish() }
}
