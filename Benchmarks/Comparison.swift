import TestSupport

/// Measures our implementation against its baseline in interleaved rounds (ours, baseline,
/// ours, …) so that machine noise falls on both alike, and reports medians.
struct Comparison {
    /// Rounds per side; the median is reported (at least 5).
    var rounds: Int

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
                let before = AllocationCounter.current
                let elapsed = Stopwatch.time(isOurs ? ours : baseline)
                let allocations = AllocationCounter.current - before
                if isOurs {
                    oursTimes.append(elapsed)
                    oursAllocations += allocations
                } else {
                    baselineTimes.append(elapsed)
                    baselineAllocations += allocations
                }
            }
        }
        let perOperation = Double(operations) * 1_000  // ns per round → µs per operation
        let total = Double(rounds * operations)
        return Result(
            ours: median(oursTimes) / perOperation,
            baseline: median(baselineTimes) / perOperation,
            oursAllocationsPerOperation: Double(oursAllocations) / total,
            baselineAllocationsPerOperation: Double(baselineAllocations) / total
        )
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
