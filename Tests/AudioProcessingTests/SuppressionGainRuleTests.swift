// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// The gain rule on its own: 1 − overdrive × leak × echo / output power, floored.
@Suite struct SuppressionGainRuleTests {
    static let rule = SuppressionGainRule()

    /// The gain of a bin with the output at `output`, microphone at `microphone`, echo 1
    /// predicted (`linearFilterEcho` from the filter), leak `leak`.
    static func gain(_ rule: SuppressionGainRule = rule, microphone: Float, output: Float, linearFilterEcho: Float = 0,
                     leak: Float = 0.01, young: Bool = false, echoOnlyFrame: Bool = false) -> Float {
        rule.gain(microphonePower: microphone, outputPower: output, predictedEcho: 1, linearFilterEcho: linearFilterEcho,
                  leak: leak, young: young, echoOnlyFrame: echoOnlyFrame)
    }

    static func close(_ value: Float, _ expected: Float) -> Bool { abs(value - expected) < 1e-6 }

    /// Without echo the gain is 1; however large the residual, never below the floor
    /// (−40 dB: 0.01 by default; −20 dB: 0.1).
    @Test func oneWithoutEchoAndNeverBelowTheFloor() {
        #expect(Self.rule.gain(microphonePower: 1, outputPower: 1, predictedEcho: 0, linearFilterEcho: 0, leak: 1,
                               young: false, echoOnlyFrame: false) == 1)
        #expect(Self.close(Self.rule.floorGain, 0.01))
        #expect(Self.close(Self.gain(microphone: 1.5, output: 0.01, leak: 1), 0.01))
        var rule = Self.rule
        rule.floorDb = -20
        #expect(Self.close(rule.floorGain, 0.1))
        #expect(Self.close(Self.gain(rule, microphone: 1.5, output: 0.01, leak: 1), 0.1))
    }

    /// Where the microphone holds less than twice the echo, echo dominates: overdrive 20.
    @Test func echoDominatedBinsGetTheLargeOverdrive() {
        #expect(Self.close(Self.gain(microphone: 1.9, output: 1, young: true), 1 - 20 * 0.01))
    }

    /// Where the near end talks (the microphone clearly above the echo), the overdrive is 2
    /// while the bin's model is young and 0.5 once it is established — and "clearly" means
    /// above twice the echo while young, above 1.2 × it once established.
    @Test func nearEndBinsGetTheSmallOverdrives() {
        #expect(Self.close(Self.gain(microphone: 4, output: 1, young: true), 1 - 2 * 0.01))
        #expect(Self.close(Self.gain(microphone: 4, output: 1, young: false), 1 - 0.5 * 0.01))
        #expect(Self.close(Self.gain(microphone: 1.5, output: 1, young: true), 1 - 20 * 0.01))
        #expect(Self.close(Self.gain(microphone: 1.5, output: 1, young: false), 1 - 0.5 * 0.01))
        #expect(Self.close(Self.gain(microphone: 1.1, output: 1, young: false), 1 - 20 * 0.01))
    }

    /// In an echo-only frame every bin gets overdrive 20, against the larger of the predicted
    /// echo and the linear filter's; while the near end talks the filter's echo is ignored.
    @Test func echoOnlyFramesUseOverdriveTwentyAndTheLargerEcho() {
        #expect(Self.close(Self.gain(microphone: 4, output: 1, echoOnlyFrame: true), 1 - 20 * 0.01))
        #expect(Self.close(Self.gain(microphone: 4, output: 1, linearFilterEcho: 2, echoOnlyFrame: true), 1 - 20 * 0.01 * 2))
        #expect(Self.close(Self.gain(microphone: 4, output: 1, linearFilterEcho: 2), 1 - 0.5 * 0.01))
    }

    /// The overdrives are settings (the suppressor's public tunables forward here).
    @Test func overdrivesAreSettings() {
        var rule = Self.rule
        rule.echoDominantOverdrive = 10
        rule.overdrive = 3
        rule.settledOverdrive = 1
        #expect(Self.close(Self.gain(rule, microphone: 1.9, output: 1, young: true), 1 - 10 * 0.01))
        #expect(Self.close(Self.gain(rule, microphone: 4, output: 1, young: true), 1 - 3 * 0.01))
        #expect(Self.close(Self.gain(rule, microphone: 4, output: 1), 1 - 1 * 0.01))
    }

    /// Where the linear filter's output is louder than the microphone (it diverged), the
    /// gain is computed on the microphone's power with a leak of 1.
    @Test func divergedBinsUseTheMicrophoneWithFullLeak() {
        #expect(SuppressionGainRule.isDiverged(microphonePower: 4, outputPower: 8))
        #expect(!SuppressionGainRule.isDiverged(microphonePower: 4, outputPower: 4))
        #expect(Self.close(Self.gain(microphone: 400, output: 800, leak: 0.01, young: true), 1 - 2 * 1 / 400))
    }
}
