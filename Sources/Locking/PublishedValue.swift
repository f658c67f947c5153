// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// A value one thread keeps up to date for others to read: a call's counters, published by
/// the side that owns them (the audio side, the network side) and read by the application
/// from any thread without stopping audio.
///
/// `publish` from the audio thread never waits: it takes the lock only if it is free
/// (`withLockIfAvailable`) and otherwise skips, and the next frame's publish catches up.
/// `Value` is `BitwiseCopyable`, so publishing copies bytes and neither allocates nor releases
/// anything on the publishing thread.
package final class PublishedValue<Value: BitwiseCopyable & Sendable>: Sendable {
    @usableFromInline let value: Locked<Value>

    /// A published `initial` value.
    package init(_ initial: Value) {
        value = Locked(initial)
    }

    /// Publishes `newValue` unless a reader holds the lock right now; returns whether it did.
    /// Real-time safe.
    @discardableResult
    @inlinable package func publishIfAvailable(_ newValue: Value) -> Bool {
        value.withLockIfAvailable { $0 = newValue } != nil
    }

    /// Publishes `newValue`, waiting for a reader to finish (threads that may wait).
    @inlinable package func publish(_ newValue: Value) {
        value.withLock { $0 = newValue }
    }

    /// The value last published.
    @inlinable package func read() -> Value {
        value.withLock { $0 }
    }
}
