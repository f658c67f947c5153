// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Testing
import TestSupport

/// The bulk-delay estimator on its own: finds a pure delay of speech, stays silent on
/// unrelated signals, and follows a change.
@Suite struct DelayEstimatorTests {
    static let rate = 16_000

    static func feed(_ estimator: DelayEstimator, far: [Int16], microphone: [Int16]) {
        let block = 160
        far.withUnsafeBufferPointer { farBuffer in
            microphone.withUnsafeBufferPointer { mic in
                for start in stride(from: 0, to: min(far.count, microphone.count) - block + 1, by: block) {
                    estimator.process(farEnd: UnsafeBufferPointer(rebasing: farBuffer[start..<(start + block)]),
                                      microphone: UnsafeBufferPointer(rebasing: mic[start..<(start + block)]))
                }
            }
        }
    }

    static func delayed(_ signal: [Int16], by samples: Int, gain: Int16 = 2) -> [Int16] {
        [Int16](repeating: 0, count: samples) + signal.prefix(signal.count - samples).map { $0 / gain }
    }

    /// The estimate in samples, −1000 when there is none (far from every expected value).
    static func estimate(_ estimator: DelayEstimator) -> Double { Double(estimator.delaySamples ?? -1_000) }

    /// Speech delayed by 300 ms (a pure delay at −6 dB) is found within one 2 ms block.
    @Test func findsPureDelay() {
        let far = EchoScenario.farEnd
        let estimator = DelayEstimator(sampleRate: Self.rate)
        Self.feed(estimator, far: far, microphone: Self.delayed(far, by: 300 * 16))
        #expect(abs(Self.estimate(estimator) - 4_800) <= 32, "estimate \(Self.estimate(estimator)) samples")
        #expect(estimator.confidence > 0.8)
    }

    /// A microphone carrying another talker (no echo) yields no estimate.
    @Test func noEstimateWithoutEcho() {
        let estimator = DelayEstimator(sampleRate: Self.rate)
        Self.feed(estimator, far: EchoScenario.farEnd, microphone: EchoScenario.nearEnd)
        #expect(estimator.delaySamples == nil, "confidence \(estimator.confidence)")
    }

    /// 100 ms, then 450 ms: the estimate moves to the new delay.
    @Test func followsDelayChange() {
        let far = EchoScenario.farEnd
        let estimator = DelayEstimator(sampleRate: Self.rate)
        Self.feed(estimator, far: far, microphone: Self.delayed(far, by: 100 * 16))
        #expect(abs(Self.estimate(estimator) - 1_600) <= 32, "estimate \(Self.estimate(estimator)) samples")
        Self.feed(estimator, far: far, microphone: Self.delayed(far, by: 450 * 16))
        #expect(abs(Self.estimate(estimator) - 7_200) <= 32, "estimate \(Self.estimate(estimator)) samples")
    }
}
