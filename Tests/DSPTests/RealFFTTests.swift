// SPDX-License-Identifier: Apache-2.0
import DSP
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Our radix-2 real FFT (used by the residual echo suppressor) against the DFT definition.
@Suite struct RealFFTTests {
    /// A random signal's spectrum matches a direct DFT (double precision) to 1e-4 of the
    /// signal's scale, at every size the suppressor uses (8 kHz 10 ms → 256 … 48 kHz 20 ms → 2048).
    @Test(arguments: [4, 8, 256, 512, 2_048])
    func forwardMatchesDirectDFT(size: Int) {
        var generator = SeededGenerator(seed: UInt64(size))
        let signal = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
        let fft = RealFFT(size: size)
        var real = [Float](repeating: 0, count: fft.binCount)
        var imaginary = [Float](repeating: 0, count: fft.binCount)
        signal.withUnsafeBufferPointer { input in
            fft.forward(input.baseAddress!, real: &real, imaginary: &imaginary)
        }
        var worst = 0.0
        for k in 0..<fft.binCount {
            var expectedReal = 0.0, expectedImaginary = 0.0
            for n in 0..<size {
                let angle = -2 * Double.pi * Double(k * n % size) / Double(size)
                expectedReal += Double(signal[n]) * cos(angle)
                expectedImaginary += Double(signal[n]) * sin(angle)
            }
            worst = max(worst, abs(expectedReal - Double(real[k])), abs(expectedImaginary - Double(imaginary[k])))
        }
        #expect(worst < 1e-4 * Double(size), "size \(size): largest difference \(worst)")
    }

    /// A cosine at bin 5 puts N/2 in bins 5 (real) and nothing elsewhere.
    @Test func cosineLandsInItsBin() {
        let size = 64
        let signal = (0..<size).map { Float(cos(2 * Double.pi * 5 * Double($0) / Double(size))) }
        let fft = RealFFT(size: size)
        var real = [Float](repeating: 0, count: fft.binCount)
        var imaginary = [Float](repeating: 0, count: fft.binCount)
        signal.withUnsafeBufferPointer { fft.forward($0.baseAddress!, real: &real, imaginary: &imaginary) }
        for k in 0..<fft.binCount {
            #expect(abs(real[k] - (k == 5 ? 32 : 0)) <= 1e-4, "bin \(k)")
            #expect(abs(imaginary[k]) <= 1e-4, "bin \(k)")
        }
    }

    /// inverse(forward(x)) == x, and neither direction allocates.
    @Test func roundTripAndNoAllocation() {
        let size = 512
        var generator = SeededGenerator(seed: 99)
        let signal = (0..<size).map { _ in Float.random(in: -1...1, using: &generator) }
        let fft = RealFFT(size: size)
        var real = [Float](repeating: 0, count: fft.binCount)
        var imaginary = [Float](repeating: 0, count: fft.binCount)
        var back = [Float](repeating: 0, count: size)
        let allocations = signal.withUnsafeBufferPointer { input in
            real.withUnsafeMutableBufferPointer { re in
                imaginary.withUnsafeMutableBufferPointer { im in
                    back.withUnsafeMutableBufferPointer { out in
                        AllocationCounter.measure {
                            for _ in 0..<10 {
                                fft.forward(input.baseAddress!, real: re.baseAddress!, imaginary: im.baseAddress!)
                                fft.inverse(real: re.baseAddress!, imaginary: im.baseAddress!, output: out.baseAddress!)
                            }
                        }.allocations
                    }
                }
            }
        }
        #expect(allocations == 0)
        for index in 0..<size { #expect(abs(back[index] - signal[index]) <= 1e-5, "sample \(index)") }
    }
}
