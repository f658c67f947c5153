// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing
import TestSupport

/// `EchoEstimateScaling`: the filter's estimate kept where the microphone holds it, discounted
/// where it does not.
@Suite struct EchoEstimateScalingTests {
    static let frameCount = 160

    /// Runs `frames` frames of `microphone` with the filter's `output`, both made per frame by
    /// `make`, and returns the last frame's scaled output and the scaling.
    static func run(frames: Int, limit: Double = 1,
                    make: (inout SeededGenerator) -> (microphone: [Int16], output: [Int16])) -> (last: [Int16], microphone: [Int16], scaling: EchoEstimateScaling) {
        var scaling = EchoEstimateScaling(frameCount: frameCount, sampleRate: 16_000)
        var generator = SeededGenerator(seed: 7)
        var last: ([Int16], [Int16]) = ([], [])
        for _ in 0..<frames {
            var (microphone, output) = make(&generator)
            microphone.withUnsafeBufferPointer { microphone in
                output.withUnsafeMutableBufferPointer { scaling.apply(microphone: microphone.baseAddress!, output: $0.baseAddress!, limit: limit) }
            }
            last = (output, microphone)
        }
        return (last.0, last.1, scaling)
    }

    static func noise(_ amplitude: Int, _ generator: inout SeededGenerator) -> [Int16] {
        (0..<frameCount).map { _ in Int16(Int.random(in: -amplitude...amplitude, using: &generator)) }
    }

    /// A filter that found the echo exactly: its output (the near end) passes unchanged.
    @Test func anEstimateTheMicrophoneHoldsIsKept() {
        let result = Self.run(frames: 200) { generator in
            let near = Self.noise(3_000, &generator), echo = Self.noise(3_000, &generator)
            return (zip(near, echo).map { $0 + $1 }, near)
        }
        #expect(result.scaling.factor > 0.95)
    }

    /// A filter subtracting what the microphone does not hold (a path that does not exist): the
    /// estimate is discounted to almost nothing within a second.
    @Test func anEstimateTheMicrophoneDoesNotHoldIsDiscounted() {
        let result = Self.run(frames: 100) { generator in
            let near = Self.noise(3_000, &generator), phantom = Self.noise(3_000, &generator)
            return (near, zip(near, phantom).map { $0 - $1 })
        }
        #expect(result.scaling.factor < 0.1)
        let error = zip(result.last, result.microphone).map { Double($0) - Double($1) }
        let errorPower = error.reduce(0) { $0 + $1 * $1 }
        let microphonePower = result.microphone.reduce(0.0) { $0 + Double($1) * Double($1) }
        #expect(errorPower < microphonePower / 100, "the phantom at least 20 dB under the near end")
    }

    /// Limit 0 (no echo path): the microphone itself once the ramp has run.
    @Test func limitZeroPassesTheMicrophone() {
        let result = Self.run(frames: 3, limit: 0) { generator in
            let near = Self.noise(3_000, &generator), echo = Self.noise(3_000, &generator)
            return (zip(near, echo).map { $0 + $1 }, near)
        }
        #expect(result.last == result.microphone)
    }

    /// The factor ramps within a frame: from 1 to the limit 0, sample by sample.
    @Test func theFactorNeverSteps() {
        var scaling = EchoEstimateScaling(frameCount: Self.frameCount, sampleRate: 16_000)
        let microphone = [Int16](repeating: 1_000, count: Self.frameCount)
        var output = [Int16](repeating: 0, count: Self.frameCount)
        microphone.withUnsafeBufferPointer { microphone in
            output.withUnsafeMutableBufferPointer { scaling.apply(microphone: microphone.baseAddress!, output: $0.baseAddress!, limit: 0) }
        }
        // Estimate 1 000 throughout; the output climbs from ≈ 0 to 1 000 evenly.
        let steps = zip(output.dropFirst(), output).map { Int($0) - Int($1) }
        #expect(steps.allSatisfy { (5...8).contains($0) }, "\(Set(steps))")
        #expect(output.last == 1_000)
    }
}
