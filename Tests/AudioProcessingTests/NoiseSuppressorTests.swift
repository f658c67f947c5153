// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing
import TestSupport

/// Our noise suppression on its own (`NoiseSuppressor`, the gains `SpectralNoiseGain` also
/// gives the residual echo suppressor): it takes steady noise down, leaves clean speech alone
/// and follows a noise that starts mid-call.
@Suite struct NoiseSuppressorTests {
    static let rate = 16_000
    static let frameCount = 160

    /// Runs a fresh suppressor (−15 dB, the default) over `samples`; returns the output moved
    /// back by the suppressor's latency, so it lines up with the input.
    static func suppress(_ samples: [Int16], floorDb: Float = -15) -> [Int16] {
        let suppressor = NoiseSuppressor(frameCount: frameCount, sampleRate: rate, floorDb: floorDb)
        var output = samples
        output.withUnsafeMutableBufferPointer { buffer in
            for start in stride(from: 0, through: samples.count - frameCount, by: frameCount) {
                suppressor.process(buffer.baseAddress! + start)
            }
        }
        return Array(output[suppressor.latencySamples...]) + [Int16](repeating: 0, count: suppressor.latencySamples)
    }

    static func sum(_ first: [Int16], _ second: [Int16]) -> [Int16] {
        zip(first, second).map { Int16(clamping: Int($0) + Int($1)) }
    }

    /// Steady noise is taken down once the floor is learnt, never by more than the floor
    /// allows (−15 dB): pink by at least 12 dB, white by at least 10 (measured 10.9: the
    /// gains' smoothing across bins and their limited fall, which keep noise from turning
    /// musical, let white noise's random peaks through a little more).
    @Test(arguments: [false, true])
    func attenuatesSteadyNoise(pink: Bool) {
        let noise = SyntheticNoise.samples(count: 4 * Self.rate, levelDb: -40, pink: pink, seed: 11)
        let output = Self.suppress(noise)
        let reduction = SignalComparison.rmsDecibels(noise[Self.rate...]) - SignalComparison.rmsDecibels(output[Self.rate...])
        #expect(reduction > (pink ? 12 : 10) && reduction < 16.5, "\(pink ? "pink" : "white"): \(reduction) dB")
    }

    /// Clean speech comes out as it went in: the same level within 0.5 dB and a correlation
    /// of at least 0.99 at the suppressor's stated latency (no word tails gated off).
    @Test func leavesCleanSpeechAlone() throws {
        let speech = try SpeechFixture.samples(SpeechFixture.bob)
        let output = Self.suppress(speech)
        let levelChange = SignalComparison.rmsDecibels(output) - SignalComparison.rmsDecibels(speech)
        let match = SignalComparison.bestCorrelation(reference: speech, signal: output, maxLag: 0)
        #expect(abs(levelChange) < 0.5, "level \(levelChange) dB")
        #expect(match.correlation > 0.99, "correlation \(match.correlation)")
    }

    /// Speech in noise (10 dB SNR, pink): the pauses (frames where the clean talker is 40 dB
    /// under her loudest) come out at least 5 dB quieter (measured 6.5: many are the short
    /// gaps between words, where the gains' limited fall keeps word tails), the loud frames
    /// lose under 1.5 dB (0.5), and the output carries the talker better than the noisy input.
    @Test func cleansSpeechInNoise() throws {
        let speech = try SpeechFixture.samples(SpeechFixture.alice)
        let speechDb = SignalComparison.rmsDecibels(speech)
        let noise = SyntheticNoise.samples(count: speech.count, levelDb: speechDb - 10, pink: true, seed: 12)
        let noisy = Self.sum(speech, noise)
        let output = Self.suppress(noisy)
        let frames = stride(from: 2 * Self.rate, through: speech.count - Self.frameCount, by: Self.frameCount)
            .map { $0..<($0 + Self.frameCount) }
        let loudest = frames.map { SignalComparison.rmsDecibels(speech[$0]) }.max() ?? 0
        let pauses = frames.filter { SignalComparison.rmsDecibels(speech[$0]) < loudest - 40 }
        let loud = frames.filter { SignalComparison.rmsDecibels(speech[$0]) > loudest - 10 }
        func level(_ samples: [Int16], _ ranges: [Range<Int>]) -> Double {
            SignalComparison.rmsDecibels(ranges.flatMap { samples[$0] })
        }
        let pauseReduction = level(noisy, pauses) - level(output, pauses)
        let loudLoss = level(noisy, loud) - level(output, loud)
        let before = SignalComparison.bestCorrelation(reference: speech, signal: noisy, maxLag: 0).correlation
        let after = SignalComparison.bestCorrelation(reference: speech, signal: output, maxLag: 0).correlation
        let label = Comment(rawValue: "\(pauses.count) pause frames −\(pauseReduction) dB, \(loud.count) loud frames −\(loudLoss) dB, correlation \(before) → \(after)")
        #expect(pauses.count > 50 && loud.count > 50, label)
        #expect(pauseReduction > 5, label)
        #expect(loudLoss < 1.5, label)
        #expect(after > before, label)
    }

    /// A noise that starts mid-call (a fan, 30 dB over a quiet room) is suppressed once it has
    /// lasted the tracker's window (`SpectralNoiseGain.noiseWindowSeconds`, 8 s), not after
    /// the minute a 1 dB/s rise alone would take.
    @Test func followsANoiseThatStartsMidCall() {
        let quiet = SyntheticNoise.samples(count: 3 * Self.rate, levelDb: -75, pink: false, seed: 13)
        let fan = SyntheticNoise.samples(count: 11 * Self.rate, levelDb: -45, pink: true, seed: 14)
        let output = Self.suppress(quiet + fan)
        let last = (quiet.count + 9 * Self.rate)...
        let reduction = SignalComparison.rmsDecibels((quiet + fan)[last]) - SignalComparison.rmsDecibels(output[last])
        #expect(reduction > 10, "\(reduction) dB, 9 s after the noise started")
    }
}
