import Testing
@testable import JitterBuffer

/// The target rule: the cost-optimal delay, capped at the quantile.
@Suite struct RelativeDelayEstimatorTests {
    /// Feeds `count` packets 20 ms apart whose arrival delays (beyond the fastest) come from `delayMs`.
    static func estimator(count: Int, delayMs: (Int) -> Double) -> RelativeDelayEstimator {
        let estimator = RelativeDelayEstimator(maximumDelayMs: 1_000, windowCapacity: 200)
        estimator.add(arrivalMs: 0, mediaTimeMs: 0)  // the fastest packet: offset 0
        for index in 1..<count {
            let media = Double(index) * 20
            estimator.add(arrivalMs: media + delayMs(index), mediaTimeMs: media)
            if index % 50 == 0 { estimator.add(arrivalMs: media + 10, mediaTimeMs: media + 10) }  // keep a fastest packet in the 2 s window
        }
        return estimator
    }

    /// Light tail (every delay 0–20 ms equally often): each percent of late loss costs little
    /// delay to avoid, so the target is the quantile itself.
    @Test func lightTailTargetsTheQuantile() {
        let estimator = Self.estimator(count: 3_000) { Double($0 % 21) }
        let quantile = estimator.delayMs(atQuantile: RelativeDelayEstimator.quantile)
        #expect(quantile >= 20 && quantile <= 22)
        #expect(estimator.targetDelayMs == quantile)
    }

    /// Heavy tail (95 % within 10 ms, 5 % spread over 10–500 ms): covering the tail would cost
    /// about 490 ms per 5 % of late loss, more than the late loss is worth (5 000 ms per unit,
    /// 250 ms per 5 %), so the target stops where the tail begins, far below the quantile.
    @Test func heavyTailStopsWhereTheTailBegins() {
        let estimator = Self.estimator(count: 3_000) { index in
            index % 20 == 0 ? 10 + Double((index / 20) % 50) * 10 : Double(index % 10)
        }
        let quantile = estimator.delayMs(atQuantile: RelativeDelayEstimator.quantile)
        #expect(quantile > 100)
        #expect(estimator.targetDelayMs >= 10 && estimator.targetDelayMs <= 14)
    }
}
