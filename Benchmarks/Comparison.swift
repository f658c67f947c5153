// SPDX-License-Identifier: Apache-2.0
import TestSupport

/// Measures our implementation against its baseline in interleaved rounds (ours, baseline,
/// ours, …) so that machine noise falls on both alike, and reports medians.
struct Comparison {
    /// Rounds per side; the median is reported (at least 5).
    var rounds: Int
    /// When not empty, only rows with one of these exact names run (`--only NAME`).
    var onlyRows: Set<String> = []

    /// Whether the row called `name` is selected.
    func includes(_ name: String) -> Bool { onlyRows.isEmpty || onlyRows.contains(name) }

    /// The result of one comparison row.
    struct Result {
        /// Median time per operation of ours, in microseconds.
        var ours: Double
        /// Median time per operation of the baseline, in microseconds.
        var baseline: Double
        /// Heap allocations per operation of ours in steady state.
        var oursAllocationsPerOperation: Double
        /// Heap allocations per operation of the baseline in steady state.
        var baselineAllocationsPerOperation: Double
        var ratio: Double { ours / baseline }
    }

    /// Times `operations` operations per round. `prepare` runs before each round outside the
    /// timing (to reset state); `ours` and `baseline` each run the operations once.
    func run(operations: Int, prepare: () -> Void = {}, ours: () -> Void, baseline: () -> Void) -> Result {
        // Warm-up: first calls fill caches and let lazily initialised state settle.
        prepare(); ours()
        prepare(); baseline()
        var oursTimes: [Double] = []
        var baselineTimes: [Double] = []
        var oursAllocations = 0
        var baselineAllocations = 0
        for round in 0..<rounds {
            // Alternate which side goes first, so neither always runs on a warmer cache.
            let sides: [Bool] = round % 2 == 0 ? [true, false] : [false, true]
            for isOurs in sides {
                prepare()
                if isOurs {
                    let (elapsed, allocations) = Self.timeOurs(ours)
                    oursTimes.append(elapsed)
                    oursAllocations += allocations
                } else {
                    let (elapsed, allocations) = Self.timeBaseline(baseline)
                    baselineTimes.append(elapsed)
                    baselineAllocations += allocations
                }
            }
        }
        let perOperation = Double(operations) * 1_000  // ns per round → µs per operation
        let total = Double(rounds * operations)
        return Result(
            ours: Self.median(oursTimes) / perOperation,
            baseline: Self.median(baselineTimes) / perOperation,
            oursAllocationsPerOperation: Double(oursAllocations) / total,
            baselineAllocationsPerOperation: Double(baselineAllocations) / total
        )
    }

    // One function per side, never inlined, so an instruction profiler (callgrind, see
    // scripts/instruction-ratios) can attribute each side's work to a stable symbol.
    @inline(never)
    static func timeOurs(_ body: () -> Void) -> (nanoseconds: Double, allocations: Int) {
        timeAndCount(body)
    }

    @inline(never)
    static func timeBaseline(_ body: () -> Void) -> (nanoseconds: Double, allocations: Int) {
        timeAndCount(body)
    }

    private static func timeAndCount(_ body: () -> Void) -> (nanoseconds: Double, allocations: Int) {
        let before = AllocationCounter.current
        let elapsed = Stopwatch.time(body)
        return (elapsed, AllocationCounter.current - before)
    }

    /// The middle value (the mean of the two middle ones for an even count).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
