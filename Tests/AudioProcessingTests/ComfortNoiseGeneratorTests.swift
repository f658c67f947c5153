// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Foundation
import Testing

/// Comfort noise on its own: the power it adds per bin, its phases, and its level through the
/// framing.
@Suite struct ComfortNoiseGeneratorTests {
    static let binCount = 257

    static func generator() -> ComfortNoiseGenerator {
        ComfortNoiseGenerator(binCount: binCount, blockCount: 320, transformSize: 512)
    }

    /// Into an empty spectrum, each bin gets exactly the floor's power scaled by 1 − gain²
    /// (amplitude √(1 − gain²)) and by the analysis-to-synthesis factor `scale`; a gain of 1 or
    /// a zero floor adds nothing.
    @Test func powerIsTheFloorScaledByOneMinusGainSquared() {
        let generator = Self.generator()
        #expect(generator.scale == Float(2 * 512) / 320)
        let gains: [Float] = (0..<Self.binCount).map { [0, 0.1, 0.5, 0.9, 1][$0 % 5] }
        let floors: [Float] = (0..<Self.binCount).map { $0 % 7 == 3 ? 0 : 1e-3 * Float(1 + $0 % 11) }
        let spectrum = Spectrum(binCount: Self.binCount)
        generator.add(to: spectrum, gain: gains, noiseFloor: floors)
        for bin in 0..<Self.binCount {
            let expected = (1 - gains[bin] * gains[bin]) * generator.scale * floors[bin]
            #expect(abs(spectrum.power(bin) - expected) <= 1e-6 * max(expected, 1e-9), "bin \(bin), gain \(gains[bin])")
        }
    }

    /// It adds to what the gain left: a bin's value grows by the noise, it is not replaced.
    @Test func addsToTheGainedSpectrum() {
        let generator = Self.generator()
        let spectrum = Spectrum.withPowers([Float](repeating: 4, count: Self.binCount))
        generator.add(to: spectrum, gain: [Float](repeating: 1, count: Self.binCount),
                      noiseFloor: [Float](repeating: 1, count: Self.binCount))
        #expect(spectrum.powers.allSatisfy { $0 == 4 })
    }

    /// Phases are spread over the circle: over many frames the noise of a bin averages out
    /// (the mean is under 5 % of the magnitude), and every quadrant is visited about as often.
    /// After `reset` the same sequence repeats (deterministic output).
    @Test func phasesAreRandomAndRepeatAfterReset() {
        let generator = Self.generator()
        let gains = [Float](repeating: 0, count: Self.binCount)
        let floors = [Float](repeating: 1, count: Self.binCount)
        let spectrum = Spectrum(binCount: Self.binCount)
        var sumReal = 0.0, sumImaginary = 0.0
        var quadrants = [0, 0, 0, 0]
        var first: [Float] = []
        for frame in 0..<400 {
            spectrum.set([Float](repeating: 0, count: Self.binCount))
            generator.add(to: spectrum, gain: gains, noiseFloor: floors)
            if frame == 0 { first = values(spectrum.real, Self.binCount) }
            for bin in 0..<Self.binCount {
                sumReal += Double(spectrum.real[bin])
                sumImaginary += Double(spectrum.imaginary[bin])
                quadrants[(spectrum.real[bin] >= 0 ? 0 : 1) + (spectrum.imaginary[bin] >= 0 ? 0 : 2)] += 1
            }
        }
        let count = Double(400 * Self.binCount)
        let magnitude = Double(generator.scale).squareRoot()
        #expect(abs(sumReal / count) < 0.05 * magnitude && abs(sumImaginary / count) < 0.05 * magnitude)
        #expect(quadrants.allSatisfy { abs(Double($0) / count - 0.25) < 0.02 }, "quadrants \(quadrants)")
        generator.reset()
        spectrum.set([Float](repeating: 0, count: Self.binCount))
        generator.add(to: spectrum, gain: gains, noiseFloor: floors)
        #expect(values(spectrum.real, Self.binCount) == first)
    }

    /// Through the framing, where the gain removed everything, the comfort noise has the
    /// time-domain level of the floor it was given (the level `NoiseFloorTracker` reports for
    /// that floor), within 0.5 dB: `scale` converts analysis power into synthesis power.
    @Test func synthesizedLevelMatchesTheFloor() {
        let framing = STFTFraming(frameCount: 160)
        let generator = ComfortNoiseGenerator(binCount: framing.binCount, blockCount: framing.blockCount,
                                              transformSize: framing.transformSize)
        let floor: Float = 1e-4
        let floors = [Float](repeating: floor, count: framing.binCount)
        let gains = [Float](repeating: 0, count: framing.binCount)
        let spectrum = Spectrum(binCount: framing.binCount)
        var output = [Int16](repeating: 0, count: 160 * 300)
        output.withUnsafeMutableBufferPointer { out in
            for frame in 0..<300 {
                spectrum.set([Float](repeating: 0, count: framing.binCount))
                generator.add(to: spectrum, gain: gains, noiseFloor: floors)
                framing.synthesize(spectrum, into: out.baseAddress! + 160 * frame)
            }
        }
        let energy = output[160...].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(output.count - 160)
        let level = 10 * log10(energy / (32_768.0 * 32_768.0))
        let expected = 10 * log10(4 * Double(floor) * Double(framing.binCount) / Double(framing.transformSize * framing.blockCount))
        #expect(abs(level - expected) < 0.5, "level \(level) dBFS, floor \(expected) dBFS")
    }
}
