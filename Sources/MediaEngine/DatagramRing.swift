/// A preallocated single-producer/single-consumer ring of datagrams: fixed slots of
/// `slotBytes` bytes, each with a length and a time stamp. The producer fills a slot in place
/// (`slotForWriting` → write → `publish`), the consumer reads it in place (`oldest` → read →
/// `release`): no copy beyond the one into the slot, no lock, no allocation.
///
/// It carries packets between the network thread (SRTP, sockets) and the audio thread
/// (jitter buffer, encoder) of a call.
final class DatagramRing: @unchecked Sendable {
    /// Bytes one slot holds.
    let slotBytes: Int
    private let cursor: SPSCCursor
    private let storage: UnsafeMutableRawBufferPointer
    private let lengths: UnsafeMutablePointer<Int>
    private let times: UnsafeMutablePointer<Double>

    /// A ring of at least `minimumSlots` slots of `slotBytes` bytes each.
    init(minimumSlots: Int, slotBytes: Int) {
        cursor = SPSCCursor(minimumCapacity: minimumSlots)
        self.slotBytes = slotBytes
        storage = .allocate(byteCount: cursor.capacity * slotBytes, alignment: 16)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
        lengths = .allocate(capacity: cursor.capacity)
        lengths.initialize(repeating: 0, count: cursor.capacity)
        times = .allocate(capacity: cursor.capacity)
        times.initialize(repeating: 0, count: cursor.capacity)
    }

    deinit {
        storage.deallocate()
        lengths.deallocate()
        times.deallocate()
    }

    /// Slots in the ring.
    var capacity: Int { cursor.capacity }

    /// Datagrams waiting.
    var count: Int { cursor.count }

    /// Bytes of memory the ring holds.
    var memoryBytes: Int { cursor.capacity * (slotBytes + MemoryLayout<Int>.size + MemoryLayout<Double>.size) }

    private func slot(_ index: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: storage[(index * slotBytes)..<((index + 1) * slotBytes)])
    }

    /// The next free slot to fill, or nil when the ring is full. Producer only.
    func slotForWriting() -> UnsafeMutableRawBufferPointer? {
        cursor.slotToWrite().map(slot)
    }

    /// Publishes the slot just filled with `length` bytes, stamped `timeMs`. Producer only.
    func publish(length: Int, timeMs: Double) {
        guard let index = cursor.slotToWrite() else { preconditionFailure("DatagramRing.publish without a free slot") }
        lengths[index] = length
        times[index] = timeMs
        cursor.publish()
    }

    /// Copies `bytes` into a new slot; false when the ring is full or `bytes` does not fit.
    /// Producer only.
    func push(_ bytes: UnsafeRawBufferPointer, timeMs: Double) -> Bool {
        guard bytes.count <= slotBytes, let slot = slotForWriting() else { return false }
        if let base = bytes.baseAddress, bytes.count > 0 {
            slot.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
        }
        publish(length: bytes.count, timeMs: timeMs)
        return true
    }

    /// The oldest datagram: the whole slot (room to grow in place), its length and time; nil
    /// when empty. Valid until `release()`. Consumer only.
    func oldest() -> (slot: UnsafeMutableRawBufferPointer, length: Int, timeMs: Double)? {
        guard let index = cursor.slotToRead() else { return nil }
        return (slot(index), lengths[index], times[index])
    }

    /// Frees the slot returned by `oldest()`. Consumer only.
    func release() { cursor.release() }
}
