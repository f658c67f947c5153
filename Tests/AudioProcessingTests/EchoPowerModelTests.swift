// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing
import TestSupport

/// The power-domain echo model on its own (10 ms frames: young for 250 excited frames), on
/// seeded far-end powers through a known power path.
@Suite struct EchoPowerModelTests {
    static let binCount = 4

    /// Seeded far-end power spectra, one per frame: each bin's power uniform in 0.1…1.
    static func farPowers(frames: Int, seed: UInt64) -> [[Float]] {
        var generator = SeededGenerator(seed: seed)
        return (0..<frames).map { _ in (0..<binCount).map { _ in Float.random(in: 0.1...1, using: &generator) } }
    }

    /// Runs the model over `far` in echo-only frames, the microphone hearing the far power
    /// 50 ms (5 frames) earlier × 0.25 for the first 3 s and × `gainAfter` after; returns the
    /// predicted echo power over the microphone's power in each 250 ms (25 frames).
    static func predictionRatios(_ model: EchoPowerModel, far: [[Float]], gainAfter: Float = 0.25,
                                 echoPathEvident: (Int) -> Bool = { _ in true }) -> [Float] {
        let spectrum = Spectrum(binCount: binCount)
        var ratios: [Float] = []
        var predicted: Float = 0, heard: Float = 0
        for frame in far.indices {
            spectrum.set(far[frame])
            model.predict(from: spectrum)
            let gain: Float = frame < 300 ? 0.25 : gainAfter
            let microphone = (0..<binCount).map { frame >= 5 ? gain * far[frame - 5][$0] : 0 }
            predicted += values(model.predictedPower, binCount).reduce(0, +)
            heard += microphone.reduce(0, +)
            if frame % 25 == 24 {
                ratios.append(predicted / heard)
                predicted = 0
                heard = 0
            }
            model.learn(microphonePower: microphone, echoOnlyFrame: true, echoPathEvident: echoPathEvident(frame))
        }
        return ratios
    }

    /// The history covers 300 ms (30 frames at 10 ms, 15 at 20 ms).
    @Test func historyCoversThreeHundredMilliseconds() {
        #expect(EchoPowerModel(binCount: 1, frameDurationMs: 10).historyLength == 30)
        #expect(EchoPowerModel(binCount: 1, frameDurationMs: 20).historyLength == 15)
    }

    /// A room that delays the far end by 50 ms and scales its power by 0.25 is learnt while
    /// the bins are young: from 0.5 s to 2.5 s the predicted echo power in every 250 ms is
    /// within 5 % of what the microphone heard.
    @Test func learnsADelayedScaledPath() {
        let ratios = Self.predictionRatios(EchoPowerModel(binCount: Self.binCount, frameDurationMs: 10),
                                           far: Self.farPowers(frames: 250, seed: 1))
        #expect(ratios[2...].allSatisfy { abs($0 - 1) < 0.05 }, "predicted / heard per 250 ms: \(ratios)")
    }

    /// Once established (after 2.5 s of excitation) the model follows a quieter echo at full
    /// speed but a louder one only slowly (at a tenth of the step here, in echo-only frames),
    /// so double talk cannot ratchet it up into the near end: when the path's power gain halves
    /// at 3 s, the prediction is within 10 % again in the second 250 ms after; when it doubles,
    /// the prediction is still more than 25 % low 3 s later.
    @Test func learnsDownwardFastAndUpwardSlowlyOnceEstablished() {
        let far = Self.farPowers(frames: 600, seed: 1)
        let down = Self.predictionRatios(EchoPowerModel(binCount: Self.binCount, frameDurationMs: 10), far: far, gainAfter: 0.125)
        let up = Self.predictionRatios(EchoPowerModel(binCount: Self.binCount, frameDurationMs: 10), far: far, gainAfter: 0.5)
        #expect(abs(down[13] - 1) < 0.1, "halved: \(down[12...])")
        #expect(up[12...].allSatisfy { $0 < 0.75 }, "doubled: \(up[12...])")
    }

    /// Without evidence of an echo path the model learns nothing upward, young or not (a near
    /// end independent of the far end must not be learnt as its echo), but still downward: a
    /// path learnt in the first second, before the evidence went away at 1 s, is unlearnt
    /// once the microphone is quieter than predicted (the power gain falls to an eighth at 3 s:
    /// within 10 % again 3 s later).
    @Test func learnsOnlyDownwardWithoutEvidenceOfAnEchoPath() {
        let far = Self.farPowers(frames: 600, seed: 1)
        let never = Self.predictionRatios(EchoPowerModel(binCount: Self.binCount, frameDurationMs: 10), far: far,
                                          echoPathEvident: { _ in false })
        #expect(never.allSatisfy { $0 == 0 }, "no evidence: \(never)")
        let lost = Self.predictionRatios(EchoPowerModel(binCount: Self.binCount, frameDurationMs: 10), far: far, gainAfter: 0.03,
                                         echoPathEvident: { $0 < 100 })
        #expect(abs(lost[3] - 1) < 0.1, "learnt while evident: \(lost[..<4])")
        #expect(abs(lost[lost.count - 1] - 1) < 0.1, "unlearnt after: \(lost[12...])")
    }

    /// A far end that starts faintly while the near end talks (the near end's own voice coming
    /// back a round trip late from a far end that still passes its echo) does not inflate an
    /// established path: after 3 s of echo alone (power gain 0.25, 50 ms late), 400 ms of far
    /// silence, then 100 ms of a far end 30 dB down under a near end at full power, a normal
    /// far end is still predicted at its echo's level. Normalised by the faint far end's power,
    /// the slow step up used to multiply the path by hundreds in that tenth of a second.
    @Test func aFaintFarEndUnderTheNearEndDoesNotInflateThePath() {
        let model = EchoPowerModel(binCount: Self.binCount, frameDurationMs: 10)
        let far = Self.farPowers(frames: 300, seed: 5)
        _ = Self.predictionRatios(model, far: far)
        let spectrum = Spectrum(binCount: Self.binCount)
        var played = far
        // The room's echo of what played 50 ms before, and the near end on top.
        func frame(_ power: Float, nearEnd: Float, echoOnly: Bool) {
            played.append([Float](repeating: power, count: Self.binCount))
            spectrum.set(played[played.count - 1])
            model.predict(from: spectrum)
            let echo = played[played.count - 6].map { 0.25 * $0 }
            model.learn(microphonePower: echo.map { $0 + nearEnd }, echoOnlyFrame: echoOnly)
        }
        for _ in 0..<40 { frame(1e-9, nearEnd: 0, echoOnly: true) }
        for _ in 0..<10 { frame(1e-3, nearEnd: 1, echoOnly: false) }
        // A steady far end at 0.5 for the history's length: its echo is 0.125.
        for _ in 0..<model.historyLength {
            spectrum.set([Float](repeating: 0.5, count: Self.binCount))
            model.predict(from: spectrum)
        }
        let predicted = values(model.predictedPower, Self.binCount)
        #expect(predicted.allSatisfy { $0 > 0.06 && $0 < 0.25 }, "predicted \(predicted) for an echo of 0.125")
    }

    /// A bin is young for its first 2.5 s of far-end excitation (250 frames at 10 ms); frames
    /// where its far power is more than 30 dB below the mean bin power do not count; `forget`
    /// makes every bin young again.
    @Test func youngUntilTwoAndAHalfSecondsOfExcitation() {
        let model = EchoPowerModel(binCount: 2, frameDurationMs: 10)
        let spectrum = Spectrum.withPowers([1, 1e-5])
        let silent = [Float](repeating: 0, count: 2)
        for frame in 1...250 {
            model.predict(from: spectrum)
            model.learn(microphonePower: silent, echoOnlyFrame: true)
            #expect(model.isYoung(0) == (frame < 250), "frame \(frame)")
        }
        #expect(model.isYoung(1), "a bin 47 dB below the mean was never excited")
        model.forget()
        #expect(model.isYoung(0))
    }

    /// Echo alone means the microphone below twice the predicted echo.
    @Test func echoAloneBelowTwiceThePrediction() {
        #expect(EchoPowerModel.isEchoAlone(microphonePower: 1.9, predictedEcho: 1))
        #expect(!EchoPowerModel.isEchoAlone(microphonePower: 2.1, predictedEcho: 1))
    }

    /// `reset` forgets the far-end history and the path: nothing is predicted afterwards until
    /// it learns again.
    @Test func resetForgetsHistoryAndPath() {
        let model = EchoPowerModel(binCount: Self.binCount, frameDurationMs: 10)
        _ = Self.predictionRatios(model, far: Self.farPowers(frames: 100, seed: 4))
        model.reset()
        model.predict(from: Spectrum.withPowers([1, 1, 1, 1]))
        #expect(values(model.predictedPower, Self.binCount).allSatisfy { $0 == 0 })
    }
}
