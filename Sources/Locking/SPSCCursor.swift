// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// The two indices of a single-producer/single-consumer ring of fixed slots: slots ever
/// written (advanced by the producer only) and slots ever read (advanced by the consumer
/// only), as `Synchronization.Atomic` counters, so neither side locks or allocates. The one
/// ring discipline of the package: `SPSCQueue` (values), `DatagramQueue` (datagram slots) and
/// `SampleRing` (samples, moved in runs) are storage over it.
///
/// Slot `n` lives at `n & mask`. The producer publishes a slot with a releasing store after it
/// has written it; the consumer frees it with a releasing store after it has read it, so the
/// slot contents travel with the index.
@usableFromInline package final class SPSCCursor: @unchecked Sendable {
    /// Slots in the ring (a power of two).
    @usableFromInline package let capacity: Int
    /// `capacity - 1`.
    @usableFromInline package let mask: Int
    @usableFromInline let written = Atomic<Int>(0)
    @usableFromInline let read = Atomic<Int>(0)

    /// A cursor over at least `minimumCapacity` slots (rounded up to a power of two).
    package init(minimumCapacity: Int) {
        var size = 1
        while size < max(minimumCapacity, 2) { size <<= 1 }
        capacity = size
        mask = size - 1
    }

    /// The slot the producer may fill next, or nil when the ring is full. Producer only.
    @inlinable package func slotToWrite() -> Int? {
        let next = written.load(ordering: .relaxed)
        guard next - read.load(ordering: .acquiring) < capacity else { return nil }
        return next & mask
    }

    /// Publishes the slot returned by `slotToWrite()`. Producer only.
    @inlinable package func publish() {
        written.store(written.load(ordering: .relaxed) + 1, ordering: .releasing)
    }

    /// The oldest published slot, or nil when the ring is empty. Consumer only.
    @inlinable package func slotToRead() -> Int? {
        let next = read.load(ordering: .relaxed)
        guard written.load(ordering: .acquiring) > next else { return nil }
        return next & mask
    }

    /// Frees the slot returned by `slotToRead()`. Consumer only.
    @inlinable package func release() {
        read.store(read.load(ordering: .relaxed) + 1, ordering: .releasing)
    }

    /// Free slots from the producer's side: how many it may fill before publishing. Producer only.
    @inlinable package var writableCount: Int { capacity - (written.load(ordering: .relaxed) - read.load(ordering: .acquiring)) }

    /// Published slots from the consumer's side: how many it may read. Consumer only.
    @inlinable package var readableCount: Int { written.load(ordering: .acquiring) - read.load(ordering: .relaxed) }

    /// Slots ever written (where the next write goes, before masking). Producer only.
    @inlinable package var writeIndex: Int { written.load(ordering: .relaxed) }

    /// Slots ever read (where the next read comes from, before masking). Consumer only.
    @inlinable package var readIndex: Int { read.load(ordering: .relaxed) }

    /// Publishes `count` slots written from `writeIndex` on. Producer only.
    @inlinable package func publish(count: Int) {
        written.store(written.load(ordering: .relaxed) + count, ordering: .releasing)
    }

    /// Frees `count` slots read from `readIndex` on. Consumer only.
    @inlinable package func release(count: Int) {
        read.store(read.load(ordering: .relaxed) + count, ordering: .releasing)
    }

    /// Published slots not yet read (exact from either side's own view, approximate from others).
    @inlinable package var count: Int { written.load(ordering: .acquiring) - read.load(ordering: .acquiring) }
}
