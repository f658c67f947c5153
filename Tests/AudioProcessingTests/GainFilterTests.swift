// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Foundation
import Testing
import TestSupport

/// The suppressor's time-domain gain: per-bin gains applied by a short linear-phase filter,
/// `halfLength` samples late.
@Suite struct GainFilterTests {
    static let rate = 16_000
    static let frameCount = 160
    static let transformSize = 512
    static var binCount: Int { transformSize / 2 + 1 }

    /// Runs `signal` through `filter` frame by frame, with the gains `gainsForFrame` gives each
    /// frame; returns the output (scaled back to 16-bit units, not rounded).
    static func run(_ filter: GainFilter, _ signal: [Int16], gainsForFrame: (Int) -> [Float]?) -> [Float] {
        var output = [Float](repeating: 0, count: signal.count)
        signal.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                for frame in 0..<(signal.count / frameCount) {
                    if let gains = gainsForFrame(frame) { gains.withUnsafeBufferPointer { filter.setGains($0.baseAddress!) } }
                    filter.apply(input.baseAddress! + frame * frameCount, adding: out.baseAddress! + frame * frameCount)
                }
            }
        }
        return output.map { $0 * 32_768 }
    }

    static func tone(hz: Double, count: Int, amplitude: Double = 10_000) -> [Int16] {
        (0..<count).map { Int16(amplitude * sin(2 * Double.pi * hz * Double($0) / Double(rate))) }
    }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(samples.count, 1))).squareRoot()
    }

    /// Gains of 1 everywhere make one tap of 1: the input comes out exactly, `halfLength` late.
    @Test(arguments: [0, 32, 96])
    func unitGainsPassTheSignalHalfTheFilterLate(halfLength: Int) {
        let filter = GainFilter(transformSize: Self.transformSize, frameCount: Self.frameCount, halfLength: halfLength)
        #expect(filter.latencySamples == halfLength)
        var generator = SeededGenerator(seed: 7)
        let input = (0..<(30 * Self.frameCount)).map { _ in Int16.random(in: -30_000...30_000, using: &generator) }
        let ones = [Float](repeating: 1, count: Self.binCount)
        let output = Self.run(filter, input) { _ in ones }
        var worst: Float = 0
        for index in 0..<(input.count - halfLength) { worst = max(worst, abs(output[index + halfLength] - Float(input[index]))) }
        #expect(worst < 0.5, "largest difference \(worst)")
    }

    /// A low-pass curve (1 up to 4 kHz, 0 above) keeps a 1 kHz tone and takes a 6 kHz tone
    /// down by more than 30 dB: the short filter follows a curve that is smooth at its scale.
    @Test func followsTheGainCurve() {
        let cutoffBin = 4_000 * Self.transformSize / Self.rate
        let lowPass = (0..<Self.binCount).map { Float($0 <= cutoffBin ? 1 : 0) }
        for (hz, lowest, highest) in [(1_000.0, -0.5, 0.5), (6_000.0, -200.0, -30.0)] {
            let filter = GainFilter(transformSize: Self.transformSize, frameCount: Self.frameCount, halfLength: 32)
            let input = Self.tone(hz: hz, count: 40 * Self.frameCount)
            let output = Self.run(filter, input) { _ in lowPass }
            let inputLevel = Self.rms(input[1_600...].map(Float.init)[...])
            let gainDb = 20 * log10(max(Self.rms(output[1_600...]), 1e-9) / inputLevel)
            #expect(gainDb >= lowest && gainDb <= highest, "\(hz) Hz: \(gainDb) dB")
        }
    }

    /// A new gain fades in over the first half of the frame: no step at the frame boundary,
    /// and the new gain holds exactly from the crossfade on.
    @Test func aNewGainFadesIn() {
        let filter = GainFilter(transformSize: Self.transformSize, frameCount: Self.frameCount, halfLength: 32)
        let input = Self.tone(hz: 200, count: 20 * Self.frameCount)
        let switchFrame = 10
        let output = Self.run(filter, input) { frame in
            [Float](repeating: frame < switchFrame ? 1 : 0.25, count: Self.binCount)
        }
        // The largest step between neighbouring samples stays that of the tone itself.
        let toneStep = 10_000 * 2 * Double.pi * 200 / Double(Self.rate)
        var largestStep = 0.0
        for index in 1..<output.count { largestStep = max(largestStep, Double(abs(output[index] - output[index - 1]))) }
        #expect(largestStep <= toneStep * 1.05, "step \(largestStep) against the tone's \(toneStep)")
        let settled = switchFrame * Self.frameCount + filter.crossfadeSamples
        for index in settled..<(settled + Self.frameCount) {
            #expect(abs(output[index] - 0.25 * Float(input[index - 32])) < 0.5)
        }
    }

    /// Gains of 0 add nothing, and a filter made silent adds nothing until it is given a gain.
    @Test func zeroGainsAddNothing() {
        let filter = GainFilter(transformSize: Self.transformSize, frameCount: Self.frameCount, halfLength: 32, initialGain: 0)
        let input = Self.tone(hz: 500, count: 10 * Self.frameCount)
        let zeros = [Float](repeating: 0, count: Self.binCount)
        #expect(Self.run(filter, input) { _ in nil }.allSatisfy { $0 == 0 })
        #expect(Self.run(filter, input) { _ in zeros }.allSatisfy { $0 == 0 })
        // Its history was kept meanwhile: a gain of 1 then passes the signal as it was.
        let ones = [Float](repeating: 1, count: Self.binCount)
        let output = Self.run(filter, input) { _ in ones }
        let tail = 2 * Self.frameCount
        for index in tail..<output.count { #expect(abs(output[index] - Float(input[index - 32])) < 0.5) }
    }
}
