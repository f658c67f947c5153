// SPDX-License-Identifier: Apache-2.0
/// A preallocated single-producer/single-consumer queue of plain values (events, commands,
/// key presses), handed out as two halves that cannot be copied: the `producer` goes to the
/// one thread that pushes, the `consumer` to the one thread that pops. Neither side locks or
/// allocates.
///
/// `Element` is `BitwiseCopyable`, so a slot is copied without reference counting and a pop
/// never runs a deinitialiser on the consuming thread.
///
/// ```swift
/// let queue = SPSCQueue(minimumCapacity: 16, filler: 0)
/// let producer = queue.producer   // moved out: the queue is consumed
/// let consumer = queue.consumer
/// ```
@frozen package struct SPSCQueue<Element: BitwiseCopyable>: ~Copyable {
    /// The pushing half.
    package var producer: SPSCProducer<Element>
    /// The popping half.
    package var consumer: SPSCConsumer<Element>

    /// A queue of at least `minimumCapacity` elements, each slot initialised to `filler`.
    package init(minimumCapacity: Int, filler: Element) {
        let slots = SPSCSlots(minimumCapacity: minimumCapacity, filler: filler)
        producer = SPSCProducer(slots: slots)
        consumer = SPSCConsumer(slots: slots)
    }
}

/// The pushing half of an `SPSCQueue`: owned by one thread at a time.
package struct SPSCProducer<Element: BitwiseCopyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline let slots: SPSCSlots<Element>

    /// Elements the queue holds at most.
    package var capacity: Int { slots.cursor.capacity }

    /// Appends `element`; false (and nothing stored) when the queue is full.
    @discardableResult
    @inlinable package func push(_ element: Element) -> Bool {
        guard let slot = slots.cursor.slotToWrite() else { return false }
        slots.storage[slot] = element
        slots.cursor.publish()
        return true
    }
}

/// The popping half of an `SPSCQueue`: owned by one thread at a time.
package struct SPSCConsumer<Element: BitwiseCopyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline let slots: SPSCSlots<Element>

    /// Elements waiting (exact from this side's view).
    package var count: Int { slots.cursor.count }

    /// Removes and returns the oldest element, or nil when empty.
    @inlinable package func pop() -> Element? {
        guard let slot = slots.cursor.slotToRead() else { return nil }
        let element = slots.storage[slot]
        slots.cursor.release()
        return element
    }
}

/// The storage both halves share.
@usableFromInline final class SPSCSlots<Element: BitwiseCopyable>: @unchecked Sendable {
    @usableFromInline let cursor: SPSCCursor
    @usableFromInline let storage: UnsafeMutablePointer<Element>

    init(minimumCapacity: Int, filler: Element) {
        cursor = SPSCCursor(minimumCapacity: minimumCapacity)
        storage = .allocate(capacity: cursor.capacity)
        storage.initialize(repeating: filler, count: cursor.capacity)
    }

    deinit { storage.deallocate() }
}
