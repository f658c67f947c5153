// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Foundation
import Testing
import TestSupport

/// Our time-domain AGC on its own, fed speech with the probability a VAD would give it.
@Suite struct AutomaticGainControlTests {
    static let rate = 16_000
    static let frameCount = 160
    static let target: Float = 1_640

    static func agc(maximumGainDb: Float = 30) -> AutomaticGainControl {
        AutomaticGainControl(frameCount: frameCount, sampleRate: rate, targetLevel: target, maximumGainDb: maximumGainDb)
    }

    /// Which frames of `speech` are the talker's (within 30 dB of its loudest frame): the
    /// speech probability a VAD would give, fixed by the fixture so the level is measured on
    /// the same frames before and after the gain.
    static func activeFrames(_ speech: [Int16]) -> [Bool] {
        let levels = stride(from: 0, through: speech.count - frameCount, by: frameCount).map {
            SignalComparison.rmsDecibels(speech[$0..<($0 + frameCount)])
        }
        let loudest = levels.max() ?? 0
        return levels.map { $0 > loudest - 30 }
    }

    /// Runs `agc` over `samples`, frame by frame, with the speech probability 0.9 in `active`
    /// frames (repeated as needed) and `pause` elsewhere, and `hold` for every frame.
    static func run(_ agc: inout AutomaticGainControl, _ samples: [Int16], active: [Bool], pause: Float = 0,
                    hold: Bool = false) -> [Int16] {
        var output = samples
        output.withUnsafeMutableBufferPointer { buffer in
            for (frame, start) in stride(from: 0, through: samples.count - frameCount, by: frameCount).enumerated() {
                let chance: Float = active[frame % active.count] ? 0.9 : pause
                agc.process(buffer.baseAddress! + start, speechProbability: chance, hold: hold)
            }
        }
        return output
    }

    /// The RMS of the `active` frames, in dB on the 16-bit scale (0 dB: 1 LSB).
    static func activeLevelDb(_ samples: [Int16], active: [Bool]) -> Double {
        var power = 0.0, frames = 0
        for (frame, start) in stride(from: 0, through: samples.count - frameCount, by: frameCount).enumerated()
        where active[frame % active.count] {
            power += samples[start..<(start + frameCount)].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(frameCount)
            frames += 1
        }
        return 10 * log10(power / Double(max(frames, 1)))
    }

    static func scaled(_ samples: [Int16], db: Double) -> [Int16] {
        let factor = pow(10, db / 20)
        return samples.map { Int16(max(-32_768, min(32_767, (Double($0) * factor).rounded()))) }
    }

    static var targetDb: Double { 20 * log10(Double(target)) }

    /// Speech 20 dB under the target is brought to within 3 dB of it once the gain has risen
    /// (12 dB/s: two seconds), and speech 12 dB over it within 3 dB too (40 dB/s down).
    @Test(arguments: [-20.0, 12.0])
    func bringsSpeechToTheTarget(offsetDb: Double) throws {
        let speech = try SpeechFixture.samples(SpeechFixture.alice)
        let active = Self.activeFrames(speech)
        let input = Self.scaled(speech, db: Self.targetDb + offsetDb - Self.activeLevelDb(speech, active: active))
        var agc = Self.agc()
        let output = Self.run(&agc, input + input, active: active)
        let settled = Array(output[input.count...])
        let level = Self.activeLevelDb(settled, active: active)
        #expect(abs(level - Self.targetDb) < 3, "output \(level) dB, target \(Self.targetDb) dB")
    }

    /// No sample goes past the peak limit (28 000), even when the gain toward the target is
    /// large and the speech has peaks: the frame's peak is checked before it is gained.
    @Test func neverClips() throws {
        let speech = try SpeechFixture.samples(SpeechFixture.bob)
        // Quiet on average, with a near-full-scale click every second.
        let active = Self.activeFrames(speech)
        var input = Self.scaled(speech, db: Self.targetDb - 25 - Self.activeLevelDb(speech, active: active))
        for start in stride(from: Self.rate, to: input.count, by: Self.rate) { input[start] = 20_000 }
        var agc = Self.agc()
        let output = Self.run(&agc, input, active: active)
        let peak = output.map { abs(Int($0)) }.max() ?? 0
        #expect(peak <= Int(AutomaticGainControl.peakLimit) + 1, "peak \(peak)")
        #expect(agc.gain > 5, "the gain toward the target stays high: \(agc.gain)")
    }

    /// Held (a frame that is mostly echo), neither the level nor the gain moves, however loud.
    @Test func holdKeepsLevelAndGain() throws {
        let speech = try SpeechFixture.samples(SpeechFixture.alice)
        let active = Self.activeFrames(speech)
        var agc = Self.agc()
        _ = Self.run(&agc, speech, active: active)
        let gain = agc.gain, level = agc.speechPower
        _ = Self.run(&agc, Self.scaled(speech, db: 20), active: active, hold: true)
        #expect(agc.gain == gain)
        #expect(agc.speechPower == level)
    }

    /// Pauses do not pump: through 3 s of background noise that the VAD calls no speech, the
    /// gain stays where the speech left it, so the noise is not lifted between words.
    @Test func noPumpingInPauses() throws {
        let speech = try SpeechFixture.samples(SpeechFixture.alice)
        var agc = Self.agc()
        _ = Self.run(&agc, speech, active: Self.activeFrames(speech))
        let gain = agc.gain
        let noise = SyntheticNoise.samples(count: 3 * Self.rate, levelDb: -60, pink: true, seed: 5)
        let output = Self.run(&agc, noise, active: [false], pause: 0.1)
        #expect(agc.gain == gain)
        let lift = SignalComparison.rmsDecibels(output) - SignalComparison.rmsDecibels(noise)
        #expect(abs(lift - 20 * log10(Double(gain))) < 0.5, "noise lifted \(lift) dB at a gain of \(gain)")
    }

    /// The level over the first speech frames is their mean, not the first frame's: a quiet
    /// onset (20 dB down) and nine frames at the speech's level read within 1 dB of that level
    /// (a plain smoothing started at the onset read 6 dB low, and lifted the first words).
    @Test func theFirstFramesLevelIsTheirMean() {
        var agc = Self.agc()
        var onset = [Int16](repeating: 0, count: Self.frameCount)
        var loud = onset
        for index in 0..<Self.frameCount {
            let phase = Double(index) * 2 * Double.pi * 500 / Double(Self.rate)
            onset[index] = Int16(300 * sin(phase))
            loud[index] = Int16(3_000 * sin(phase))
        }
        _ = Self.run(&agc, onset + Array([[Int16]](repeating: loud, count: 9).joined()), active: [true])
        let loudPower = Float(3_000 * 3_000) / 2
        #expect(abs(10 * log10(Double(agc.speechPower / loudPower))) < 1, "level \(agc.speechPower), speech \(loudPower)")
    }

    /// The maximum gain bounds how far a quiet talker (and any echo left) is lifted.
    @Test func maximumGainBoundsTheLift() throws {
        let speech = try SpeechFixture.samples(SpeechFixture.alice)
        let active = Self.activeFrames(speech)
        let input = Self.scaled(speech, db: Self.targetDb - 40 - Self.activeLevelDb(speech, active: active))
        var agc = Self.agc(maximumGainDb: 10)
        _ = Self.run(&agc, input + input, active: active)
        #expect(abs(20 * log10(Double(agc.gain)) - 10) < 0.01, "gain \(agc.gain)")
    }
}
