// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Foundation
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

    /// The near end talks alone for its whole fixture (the far end silent), then the far end's
    /// echo alone arrives 100 ms late at −24 dB: the estimate is found within a second of the
    /// far end's first word. When the near end's speech counted toward the normalization, its
    /// energy held the correlation under `minimumConfidence` for 3.9 s here.
    @Test func aNearEndThatTalkedFirstDoesNotHoldTheEstimateBack() {
        let estimator = DelayEstimator(sampleRate: Self.rate)
        let near = EchoScenario.nearEnd
        Self.feed(estimator, far: [Int16](repeating: 0, count: near.count), microphone: near)
        #expect(estimator.delaySamples == nil)
        let far = EchoScenario.farEnd
        let echo = Self.delayed(far, by: 100 * 16, gain: 16)
        let chunk = Self.rate / 10
        var foundAfterMs: Int?
        for start in stride(from: 0, to: far.count - chunk, by: chunk) where foundAfterMs == nil {
            Self.feed(estimator, far: Array(far[start..<(start + chunk)]), microphone: Array(echo[start..<(start + chunk)]))
            if abs(Self.estimate(estimator) - 1_600) <= 32 { foundAfterMs = (start + chunk) * 1_000 / Self.rate }
        }
        #expect((foundAfterMs ?? .max) <= 1_000, "found after \(String(describing: foundAfterMs)) ms of far end")
    }

    /// The far end may be heard from its first active block until the maximum delay has passed
    /// without one; the correlation holds still meanwhile.
    @Test func theFarEndMayBeHeardForTheMaximumDelayAfterItPlayed() {
        let estimator = DelayEstimator(sampleRate: Self.rate, maximumDelayMs: 200)
        #expect(!estimator.mayHearFarEnd)
        let tone = (0..<1_600).map { Int16(8_000 * sin(Double($0) * 0.3)) }
        Self.feed(estimator, far: tone, microphone: Self.delayed(tone, by: 160))
        #expect(estimator.mayHearFarEnd)
        let silence = [Int16](repeating: 0, count: 3_040)
        Self.feed(estimator, far: silence, microphone: silence)
        #expect(estimator.mayHearFarEnd, "190 ms after the far end played")
        Self.feed(estimator, far: [Int16](repeating: 0, count: 320), microphone: Array(EchoScenario.nearEnd.prefix(320)))
        #expect(!estimator.mayHearFarEnd, "210 ms after the far end played")
    }
}
