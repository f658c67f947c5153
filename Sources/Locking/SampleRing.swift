// SPDX-License-Identifier: Apache-2.0
/// A preallocated single-producer/single-consumer ring of interleaved 16-bit samples, moved
/// in runs: one slot per sample over `SPSCCursor`, the package's one ring discipline.
///
/// One thread writes, one thread reads; neither side locks or allocates. Capacity is rounded
/// up to a power of two.
public final class SampleRing: @unchecked Sendable {
    @usableFromInline let storage: UnsafeMutablePointer<Int16>
    @usableFromInline let cursor: SPSCCursor

    /// Samples the ring can hold.
    @inlinable public var capacity: Int { cursor.capacity }

    /// A ring holding at least `minimumCapacity` samples.
    public init(minimumCapacity: Int) {
        cursor = SPSCCursor(minimumCapacity: minimumCapacity)
        storage = .allocate(capacity: cursor.capacity)
        storage.initialize(repeating: 0, count: cursor.capacity)
    }

    deinit { storage.deallocate() }

    /// Samples ready to read (exact for the consumer).
    @inlinable public var availableToRead: Int { cursor.readableCount }

    /// Free space, in samples (exact for the producer).
    @inlinable public var availableToWrite: Int { cursor.writableCount }

    /// Copies as many of `samples` as fit; returns how many were written. Producer only.
    @inlinable @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        guard let base = samples.baseAddress else { return 0 }
        let count = min(samples.count, cursor.writableCount)
        guard count > 0 else { return 0 }
        let start = cursor.writeIndex & cursor.mask
        let first = min(count, capacity - start)
        (storage + start).update(from: base, count: first)
        if count > first { storage.update(from: base + first, count: count - first) }
        cursor.publish(count: count)
        return count
    }

    /// Moves up to `buffer.count` samples into `buffer`; returns how many. Consumer only.
    @inlinable @discardableResult
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        let count = min(buffer.count, cursor.readableCount)
        guard count > 0 else { return 0 }
        let start = cursor.readIndex & cursor.mask
        let first = min(count, capacity - start)
        base.update(from: storage + start, count: first)
        if count > first { (base + first).update(from: storage, count: count - first) }
        cursor.release(count: count)
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
