// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing
import TestSupport

/// The suppressor's framing on its own: analysis then synthesis is the identity, one frame late.
@Suite struct STFTFramingTests {
    /// Analyses and synthesizes `signal` frame by frame; returns the output.
    static func roundTrip(_ framing: STFTFraming, _ signal: [Int16]) -> [Int16] {
        let frameCount = framing.frameCount
        let spectrum = Spectrum(binCount: framing.binCount)
        var output = [Int16](repeating: 0, count: signal.count)
        signal.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                for start in stride(from: 0, to: signal.count - frameCount + 1, by: frameCount) {
                    framing.analyze(input.baseAddress! + start, into: spectrum)
                    framing.synthesize(spectrum, into: out.baseAddress! + start)
                }
            }
        }
        return output
    }

    /// Seeded noise over the whole 16-bit range but the last bit of headroom.
    static func noise(count: Int, seed: UInt64) -> [Int16] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Int16.random(in: -30_000...30_000, using: &generator) }
    }

    /// Runs `input` through `framing` and returns the largest difference between the output
    /// and the input `latencySamples` late; nil when the output does not start with that much
    /// silence.
    static func worstDifference(_ framing: STFTFraming, _ input: [Int16]) -> Int? {
        let latency = framing.latencySamples
        let output = roundTrip(framing, input)
        guard output[..<latency].allSatisfy({ $0 == 0 }) else { return nil }
        var worst = 0
        for index in 0..<(input.count - latency) {
            worst = max(worst, abs(Int(output[index + latency]) - Int(input[index])))
        }
        return worst
    }

    /// The square-root Hann windows overlap-add to 1, so the output is the input with unit
    /// gain, exactly one frame (`latencySamples`) late, within one unit of rounding — at the
    /// smallest (8 kHz, 10 ms: a 160-sample block in 256 points), a typical (16 kHz, 10 ms) and
    /// the largest (48 kHz, 20 ms: 2048 points) framing; the first frame out is silence.
    @Test(arguments: [80, 160, 960])
    func reconstructsWithUnitGainOneFrameLate(frameCount: Int) {
        let framing = STFTFraming(frameCount: frameCount)
        #expect(framing.latencySamples == frameCount)
        #expect(framing.blockCount == 2 * frameCount)
        #expect(framing.transformSize >= framing.blockCount && framing.transformSize < 2 * framing.blockCount)
        let worst = Self.worstDifference(framing, Self.noise(count: 40 * frameCount, seed: UInt64(frameCount)))
        #expect(worst.map { $0 <= 1 } == true, "largest difference \(String(describing: worst)) at \(frameCount) samples per frame")
    }

    /// Asymmetric windows (`overlapCount` under a frame) reconstruct with unit gain too, the
    /// crossfade late instead of a frame: at 16 kHz with a 5 ms and a 1 ms crossfade, and at
    /// 48 kHz, 10 ms hops, with the 5 ms the echo canceller uses.
    @Test(arguments: [(160, 80), (160, 16), (480, 240)])
    func asymmetricWindowsReconstructTheCrossfadeLate(frameCount: Int, overlapCount: Int) {
        let framing = STFTFraming(frameCount: frameCount, overlapCount: overlapCount)
        #expect(framing.latencySamples == overlapCount)
        let worst = Self.worstDifference(framing, Self.noise(count: 40 * frameCount, seed: UInt64(overlapCount)))
        #expect(worst.map { $0 <= 1 } == true, "largest difference \(String(describing: worst)), \(overlapCount) of \(frameCount) crossfaded")
    }

    /// `reset` forgets the previous frame and the pending overlap: the framing then behaves
    /// as a new one.
    @Test func resetForgetsTheSignal() {
        let used = STFTFraming(frameCount: 160)
        _ = Self.roundTrip(used, Self.noise(count: 1_600, seed: 1))
        used.reset()
        let input = Self.noise(count: 1_600, seed: 2)
        #expect(Self.roundTrip(used, input) == Self.roundTrip(STFTFraming(frameCount: 160), input))
    }

    /// A full-scale input clips to 16 bits on the way out instead of wrapping.
    @Test func clipsInsteadOfWrapping() {
        let input = [Int16](repeating: .min, count: 1_600)
        let output = Self.roundTrip(STFTFraming(frameCount: 160), input)
        #expect(output[160...].allSatisfy { $0 == .min })
    }

    /// Neither direction allocates (the real-time path).
    @Test func allocatesNothing() {
        let framing = STFTFraming(frameCount: 960)
        let spectrum = Spectrum(binCount: framing.binCount)
        let input = Self.noise(count: 960, seed: 3)
        var output = [Int16](repeating: 0, count: 960)
        let allocations = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { out in
                AllocationCounter.measure {
                    for _ in 0..<20 {
                        framing.analyze(source.baseAddress!, into: spectrum)
                        framing.synthesize(spectrum, into: out.baseAddress!)
                    }
                }.allocations
            }
        }
        #expect(allocations == 0)
    }
}
