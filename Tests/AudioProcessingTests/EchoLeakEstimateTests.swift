// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// The linear filter's leak on its own.
@Suite struct EchoLeakEstimateTests {
    /// One frame in a single bin.
    static func update(_ estimate: EchoLeakEstimate, microphone: Float, output: Float, predicted: Float = 1,
                       echoOnlyFrame: Bool = false) {
        estimate.update(microphonePower: [microphone], outputPower: [output], predictedEcho: [predicted], echoOnlyFrame: echoOnlyFrame)
    }

    /// Until the filter shows it works the leak is 1 (nothing removed), and `forget` returns
    /// to that.
    @Test func startsAndForgetsAtOne() {
        let estimate = EchoLeakEstimate(binCount: 1)
        #expect(estimate.leak[0] == 1)
        Self.update(estimate, microphone: 1, output: 0.01)
        #expect(estimate.leak[0] < 1)
        estimate.forget()
        #expect(estimate.leak[0] == 1)
    }

    /// Where echo is alone, the leak falls slowly toward the output-to-microphone power ratio
    /// (a fifth of the way per frame) and follows a rise almost at once (four fifths).
    @Test func fallsSlowlyAndRisesAtOnce() {
        let estimate = EchoLeakEstimate(binCount: 1)
        Self.update(estimate, microphone: 1, output: 0.01)
        #expect(abs(estimate.leak[0] - (0.8 + 0.2 * 0.01)) < 1e-6)
        for _ in 0..<60 { Self.update(estimate, microphone: 1, output: 0.01) }
        #expect(abs(estimate.leak[0] - 0.01) < 1e-4)
        Self.update(estimate, microphone: 1, output: 0.5)
        #expect(abs(estimate.leak[0] - (0.2 * 0.01 + 0.8 * 0.5)) < 1e-6)
    }

    /// Where the microphone is well above the predicted echo (near-end speech, which the
    /// filter passes) nothing is learnt — unless the whole frame is echo only.
    @Test func learnsOnlyWhereEchoIsAlone() {
        let estimate = EchoLeakEstimate(binCount: 1)
        Self.update(estimate, microphone: 3, output: 0.03, predicted: 1)
        #expect(estimate.leak[0] == 1)
        Self.update(estimate, microphone: 3, output: 0.03, predicted: 1, echoOnlyFrame: true)
        #expect(estimate.leak[0] < 1)
    }

    /// Without any predicted echo there is nothing to measure; the ratio is capped at 1.
    @Test func needsAnEchoAndCapsAtOne() {
        let estimate = EchoLeakEstimate(binCount: 1)
        Self.update(estimate, microphone: 1e-10, output: 0, predicted: 1e-10)
        #expect(estimate.leak[0] == 1)
        Self.update(estimate, microphone: 1, output: 0.01)
        Self.update(estimate, microphone: 1, output: 5)
        #expect(estimate.leak[0] <= 1)
    }
}
