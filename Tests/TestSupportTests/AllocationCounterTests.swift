// SPDX-License-Identifier: Apache-2.0
import Testing
import TestSupport

/// The interposer must see allocations, or every zero-allocation test would pass vacuously.
/// (Sanitizer builds own the allocator and count nothing; there this suite says so and skips.)
@Suite(.enabled(if: AllocationCounter.isCounting, "a sanitizer build: allocations are not counted"))
struct AllocationCounterTests {
    @Test func countsAnArrayAllocation() {
        let (_, allocations) = AllocationCounter.measure { () -> Int in
            var array = [Int]()
            array.reserveCapacity(64)
            array.append(1)
            return array.count
        }
        #expect(allocations >= 1)
    }

    @Test func countsNothingForArithmetic() {
        var x = 1
        let (_, allocations) = AllocationCounter.measure { () -> Int in
            for i in 0..<1000 { x = x &* 31 &+ i }
            return x
        }
        #expect(allocations == 0)
    }
}
