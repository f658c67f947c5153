// SPDX-License-Identifier: Apache-2.0
/// A preallocated single-producer/single-consumer queue of datagrams — fixed slots of
/// `slotBytes` bytes, each with a length, a time stamp and a 64-bit tag (what the producer
/// learnt of the bytes, so the consumer need not learn it again) — handed out as two halves that
/// cannot be copied. The producer fills a slot in place (`slotForWriting` → write →
/// `publish`, or `push`), the consumer reads it in place (`oldest` → read → `release`): no
/// copy beyond the one into the slot, no lock, no allocation.
///
/// It carries packets between a call's network side (SRTP, sockets) and its audio side
/// (jitter buffer, encoder), which an engine runs on two threads.
@frozen package struct DatagramQueue: ~Copyable {
    /// The filling half.
    package var producer: DatagramProducer
    /// The reading half.
    package var consumer: DatagramConsumer

    /// A queue of at least `minimumSlots` slots of `slotBytes` bytes each.
    package init(minimumSlots: Int, slotBytes: Int) {
        let slots = DatagramSlots(minimumSlots: minimumSlots, slotBytes: slotBytes)
        producer = DatagramProducer(slots: slots)
        consumer = DatagramConsumer(slots: slots)
    }
}

/// The filling half of a `DatagramQueue`: owned by one thread at a time.
package struct DatagramProducer: ~Copyable, @unchecked Sendable {
    @usableFromInline let slots: DatagramSlots

    /// Bytes one slot holds.
    package var slotBytes: Int { slots.slotBytes }

    /// The next free slot to fill, or nil when the queue is full.
    @inlinable package func slotForWriting() -> UnsafeMutableRawBufferPointer? {
        slots.cursor.slotToWrite().map(slots.slot)
    }

    /// Publishes the slot just filled with `length` bytes, stamped `timeMs` and tagged `tag`.
    @inlinable package func publish(length: Int, timeMs: Double, tag: UInt64 = 0) {
        guard let index = slots.cursor.slotToWrite() else { preconditionFailure("DatagramProducer.publish without a free slot") }
        precondition(length >= 0 && length <= slots.slotBytes, "DatagramProducer.publish: \(length) bytes in a slot of \(slots.slotBytes)")
        slots.lengths[index] = length
        slots.times[index] = timeMs
        slots.tags[index] = tag
        slots.cursor.publish()
    }

    /// Copies `bytes` into a new slot; false when the queue is full or `bytes` does not fit.
    @inlinable package func push(_ bytes: UnsafeRawBufferPointer, timeMs: Double, tag: UInt64 = 0) -> Bool {
        guard bytes.count <= slots.slotBytes, let slot = slotForWriting() else { return false }
        if let base = bytes.baseAddress, bytes.count > 0 {
            slot.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
        }
        publish(length: bytes.count, timeMs: timeMs, tag: tag)
        return true
    }
}

/// The reading half of a `DatagramQueue`: owned by one thread at a time.
package struct DatagramConsumer: ~Copyable, @unchecked Sendable {
    @usableFromInline let slots: DatagramSlots

    /// Datagrams waiting.
    package var count: Int { slots.cursor.count }

    /// The oldest datagram: the whole slot (room to grow in place), its length, time and tag;
    /// nil when empty. Valid until `release()`.
    @inlinable package func oldest() -> (slot: UnsafeMutableRawBufferPointer, length: Int, timeMs: Double, tag: UInt64)? {
        guard let index = slots.cursor.slotToRead() else { return nil }
        return (slots.slot(index), slots.lengths[index], slots.times[index], slots.tags[index])
    }

    /// Frees the slot returned by `oldest()`.
    @inlinable package func release() { slots.cursor.release() }
}

/// The storage both halves share.
@usableFromInline final class DatagramSlots: @unchecked Sendable {
    @usableFromInline let slotBytes: Int
    @usableFromInline let cursor: SPSCCursor
    @usableFromInline let storage: UnsafeMutableRawBufferPointer
    @usableFromInline let lengths: UnsafeMutablePointer<Int>
    @usableFromInline let times: UnsafeMutablePointer<Double>
    @usableFromInline let tags: UnsafeMutablePointer<UInt64>

    init(minimumSlots: Int, slotBytes: Int) {
        cursor = SPSCCursor(minimumCapacity: minimumSlots)
        self.slotBytes = slotBytes
        storage = .allocate(byteCount: cursor.capacity * slotBytes, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        lengths = .allocate(capacity: cursor.capacity)
        lengths.initialize(repeating: 0, count: cursor.capacity)
        times = .allocate(capacity: cursor.capacity)
        times.initialize(repeating: 0, count: cursor.capacity)
        tags = .allocate(capacity: cursor.capacity)
        tags.initialize(repeating: 0, count: cursor.capacity)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        times.deallocate()
        tags.deallocate()
    }

    @inlinable func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[(index * slotBytes)..<((index + 1) * slotBytes)])
    }
}
