import Synchronization

/// A preallocated single-producer/single-consumer ring of interleaved 16-bit samples.
///
/// One thread writes, one thread reads; indices are `Synchronization.Atomic` counters, so
/// neither side locks or allocates. Capacity is rounded up to a power of two.
public final class SampleRing: @unchecked Sendable {
    private let storage: UnsafeMutablePointer<Int16>
    private let mask: Int
    /// Samples ever written (producer-owned).
    private let writeIndex = Atomic<Int>(0)
    /// Samples ever read (consumer-owned).
    private let readIndex = Atomic<Int>(0)

    /// Samples the ring can hold.
    public let capacity: Int

    /// A ring holding at least `minimumCapacity` samples.
    public init(minimumCapacity: Int) {
        var size = 1
        while size < max(minimumCapacity, 2) { size <<= 1 }
        capacity = size
        mask = size - 1
        storage = .allocate(capacity: size)
        storage.initialize(repeating: 0, count: size)
    }

    deinit { storage.deallocate() }

    /// Samples ready to read.
    public var availableToRead: Int {
        writeIndex.load(ordering: .acquiring) - readIndex.load(ordering: .relaxed)
    }

    /// Free space, in samples.
    public var availableToWrite: Int {
        capacity - (writeIndex.load(ordering: .relaxed) - readIndex.load(ordering: .acquiring))
    }

    /// Copies as many of `samples` as fit; returns how many were written. Producer only.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        let write = writeIndex.load(ordering: .relaxed)
        let read = readIndex.load(ordering: .acquiring)
        let count = min(samples.count, capacity - (write - read))
        guard count > 0 else { return 0 }
        let start = write & mask
        let first = min(count, capacity - start)
        (storage + start).update(from: base, count: first)
        if count > first { storage.update(from: base + first, count: count - first) }
        writeIndex.store(write + count, ordering: .releasing)
        return count
    }

    /// Moves up to `buffer.count` samples into `buffer`; returns how many. Consumer only.
    @discardableResult
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let read = readIndex.load(ordering: .relaxed)
        let write = writeIndex.load(ordering: .acquiring)
        let count = min(buffer.count, write - read)
        guard count > 0 else { return 0 }
        let start = read & mask
        let first = min(count, capacity - start)
        base.update(from: storage + start, count: first)
        if count > first { (base + first).update(from: storage, count: count - first) }
        readIndex.store(read + count, ordering: .releasing)
        return count
    }

    /// Writes an array's samples; returns how many fit.
    @discardableResult
    public func write(_ samples: [Int16]) -> Int {
        samples.withUnsafeBufferPointer { write($0) }
    }

    /// Reads up to `maximumCount` samples into a new array.
    public func read(maximumCount: Int) -> [Int16] {
        var result = [Int16](repeating: 0, count: min(maximumCount, availableToRead))
        let count = result.withUnsafeMutableBufferPointer { read(into: $0) }
        result.removeLast(result.count - count)
        return result
    }
}
