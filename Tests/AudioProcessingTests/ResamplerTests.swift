// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Foundation
import Testing
import TestSupport

/// The speex resampler behind `Resampler`: frequency, level, drift adjustment, no allocation.
@Suite struct ResamplerTests {
    static func tone(frequency: Double, rate: Int, count: Int, amplitude: Double = 10_000) -> [Int16] {
        (0..<count).map { Int16(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
    }

    /// Frequency from upward zero crossings (linearly interpolated).
    static func frequency(of samples: [Int16], rate: Int) -> Double {
        var crossings: [Double] = []
        for n in 1..<samples.count where samples[n - 1] < 0 && samples[n] >= 0 {
            let a = Double(samples[n - 1]), b = Double(samples[n])
            crossings.append(Double(n - 1) + (-a) / (b - a))
        }
        return Double(crossings.count - 1) / ((crossings.last! - crossings.first!) / Double(rate))
    }

    /// Runs `input` through `resampler` in 10 ms input blocks.
    static func run(_ resampler: Resampler, _ input: [Int16]) -> [Int16] {
        let block = resampler.inputRate / 100
        var output: [Int16] = []
        var chunk = [Int16](repeating: 0, count: block * 2 + 64)
        var position = 0
        while position + block <= input.count {
            let (consumed, written) = input[position..<(position + block)].withUnsafeBufferPointer { source in
                chunk.withUnsafeMutableBufferPointer { resampler.process(source, into: $0) }
            }
            output += chunk[..<written]
            position += consumed
        }
        return output
    }

    /// A 1 kHz tone at 44.1 kHz comes out at 48 kHz still at 1 kHz (±0.1 %), with the same
    /// level (±0.2 dB) and 48/44.1 times as many samples.
    @Test func toneFrom44100To48000KeepsFrequencyAndLevel() throws {
        let input = Self.tone(frequency: 1_000, rate: 44_100, count: 44_100)
        let resampler = try Resampler(inputRate: 44_100, outputRate: 48_000, quality: .voip)
        let output = Self.run(resampler, input)
        #expect(abs(Double(output.count) - 48_000) <= 100, "\(output.count) samples out")
        let steady = Array(output[1_000..<(output.count - 1_000)])
        let frequency = Self.frequency(of: steady, rate: 48_000)
        #expect(abs(frequency - 1_000) <= 1, "\(frequency) Hz")
        let levelIn = SignalComparison.rmsDecibels(input)
        let levelOut = SignalComparison.rmsDecibels(steady)
        #expect(abs(levelOut - levelIn) <= 0.2, "level in \(levelIn) dB, out \(levelOut) dB")
    }

    /// A +1000 ppm adjustment yields 0.1 % more output for the same input.
    @Test func ratioAdjustmentAbsorbsDrift() throws {
        let input = Self.tone(frequency: 440, rate: 48_000, count: 48_000 * 2)
        let plain = try Resampler(inputRate: 48_000, outputRate: 48_000)
        let adjusted = try Resampler(inputRate: 48_000, outputRate: 48_000)
        try adjusted.adjustRatio(ppm: 1_000)
        #expect(adjusted.driftPPM == 1_000)
        let plainCount = Self.run(plain, input).count
        let adjustedCount = Self.run(adjusted, input).count
        #expect(abs(Double(adjustedCount - plainCount) - 96) <= 10, "\(adjustedCount - plainCount) more samples")
    }

    /// Rates out of range are rejected with a typed error.
    @Test func rejectsBadRate() {
        #expect(throws: SpeexDSPError.unsupportedSampleRate(0)) { try Resampler(inputRate: 0, outputRate: 48_000) }
    }

    /// No heap allocation per call in steady state.
    @Test func processAllocatesNothing() throws {
        let resampler = try Resampler(inputRate: 44_100, outputRate: 48_000)
        let input = Self.tone(frequency: 500, rate: 44_100, count: 441)
        var output = [Int16](repeating: 0, count: 600)
        let allocations = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                for _ in 0..<10 { resampler.process(source, into: destination) }
                return AllocationCounter.measure {
                    for _ in 0..<100 { resampler.process(source, into: destination) }
                }.allocations
            }
        }
        #expect(allocations == 0)
    }
}
