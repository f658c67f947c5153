// SPDX-License-Identifier: Apache-2.0
/// A preallocated first-in-first-out queue of samples, for the mixer's hand-over between
/// device periods and pipeline frames of different lengths. One thread; allocation-free.
final class SampleFIFO {
    /// Samples it holds at most.
    let capacity: Int
    private let storage: UnsafeMutableBufferPointer<Int16>
    private var start = 0
    /// Samples waiting.
    private(set) var count = 0
    /// Samples dropped (the oldest) because a push did not fit.
    private(set) var overflowedSamples = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0)
    }

    deinit { storage.deallocate() }

    /// The space at the end, after moving what waits to the front: write up to its count and
    /// then `commit(_:)` what was written.
    func spaceForWriting() -> UnsafeMutableBufferPointer<Int16> {
        if start > 0 {
            if count > 0 {
                UnsafeMutableRawPointer(storage.baseAddress!).copyMemory(
                    from: storage.baseAddress! + start, byteCount: count * MemoryLayout<Int16>.stride)
            }
            start = 0
        }
        return UnsafeMutableBufferPointer(rebasing: storage[count..<capacity])
    }

    /// Adds the `written` samples just put into `spaceForWriting()`.
    func commit(_ written: Int) {
        count += written
    }

    /// Appends `samples`, dropping the oldest waiting ones when they do not all fit.
    func push(_ samples: UnsafeBufferPointer<Int16>) {
        let incoming = min(samples.count, capacity)
        let excess = count + incoming - capacity
        if excess > 0 { discard(excess) }
        let space = spaceForWriting()
        for index in 0..<incoming { space[index] = samples[samples.count - incoming + index] }
        overflowedSamples += samples.count - incoming
        commit(incoming)
    }

    /// Removes `destination.count` samples into `destination` (false, nothing removed, when
    /// fewer wait).
    func pop(into destination: UnsafeMutableBufferPointer<Int16>) -> Bool {
        guard count >= destination.count else { return false }
        for index in 0..<destination.count { destination[index] = storage[start + index] }
        start += destination.count
        count -= destination.count
        return true
    }

    /// Drops the oldest `samples`.
    func discard(_ samples: Int) {
        let dropped = min(samples, count)
        start += dropped
        count -= dropped
        overflowedSamples += dropped
    }
}
