// SPDX-License-Identifier: Apache-2.0
internal import CAllocationCounter

/// Counts the heap allocations made by the calling thread, through the allocator
/// interposer in `CAllocationCounter` (linked only into tests and benchmarks).
public enum AllocationCounter {
    /// Whether allocations are counted: false in AddressSanitizer and ThreadSanitizer builds
    /// (`make test-asan`, `make test-tsan`), where the sanitizer owns the allocator, so the
    /// zero-allocation tests check nothing there; the ordinary build (`make test`, CI) counts.
    public static var isCounting: Bool { ve_allocation_counting_available() != 0 }

    /// Allocations made by the calling thread so far.
    public static var current: Int { Int(ve_thread_allocation_count()) }

    /// Runs `body` on the calling thread and returns its result with the number of heap
    /// allocations it made. `body` must not hop threads (no `await` inside).
    public static func measure<Result>(_ body: () throws -> Result) rethrows -> (result: Result, allocations: Int) {
        let before = ve_thread_allocation_count()
        let result = try body()
        let after = ve_thread_allocation_count()
        return (result, Int(after - before))
    }
}
