// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A radix-2 FFT of real signals of a power-of-two length `size`, with every table and work
/// buffer allocated in `init`: `forward` and `inverse` allocate nothing (real-time safe).
///
/// speexdsp does not export its FFT, so the residual echo suppressor brings its own. A real
/// signal of length N is transformed as a complex signal of length N/2 (even samples as real
/// parts, odd as imaginary) followed by the usual split step, which halves the work of a
/// complex transform of length N.
///
/// Conventions: `forward` is unscaled, X[k] = Σ x[n]·e^(−2πikn/N) for k = 0…N/2 (`binCount`
/// bins; bins 0 and N/2 are real); `inverse` scales by 1/N, so `inverse(forward(x)) == x`.
public final class RealFFT {
    /// Transform length (a power of two, at least 4).
    public let size: Int
    /// Spectrum bins: `size / 2 + 1`.
    public var binCount: Int { size / 2 + 1 }

    private let half: Int
    private let bitReversed: UnsafeMutablePointer<Int>
    // Twiddles of the half-size complex FFT: e^(−2πik/half), k < half/2.
    private let twiddleReal: UnsafeMutablePointer<Float>
    private let twiddleImaginary: UnsafeMutablePointer<Float>
    // Twiddles of the split step: e^(−2πik/size), k ≤ half.
    private let splitReal: UnsafeMutablePointer<Float>
    private let splitImaginary: UnsafeMutablePointer<Float>
    private let workReal: UnsafeMutablePointer<Float>
    private let workImaginary: UnsafeMutablePointer<Float>

    /// Creates a transform of length `size` (a power of two, at least 4).
    public init(size: Int) {
        precondition(size >= 4 && size & (size - 1) == 0, "RealFFT: size \(size) is not a power of two ≥ 4")
        self.size = size
        half = size / 2
        bitReversed = .allocate(capacity: half)
        var bits = 0
        while 1 << bits < half { bits += 1 }
        for index in 0..<half {
            var reversed = 0
            for bit in 0..<bits where index & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
            bitReversed[index] = reversed
        }
        twiddleReal = .allocate(capacity: max(1, half / 2))
        twiddleImaginary = .allocate(capacity: max(1, half / 2))
        for index in 0..<max(1, half / 2) {
            let angle = -2 * Double.pi * Double(index) / Double(half)
            twiddleReal[index] = Float(cos(angle))
            twiddleImaginary[index] = Float(sin(angle))
        }
        splitReal = .allocate(capacity: half + 1)
        splitImaginary = .allocate(capacity: half + 1)
        for index in 0...half {
            let angle = -2 * Double.pi * Double(index) / Double(size)
            splitReal[index] = Float(cos(angle))
            splitImaginary[index] = Float(sin(angle))
        }
        workReal = .allocate(capacity: half)
        workReal.initialize(repeating: 0, count: half)
        workImaginary = .allocate(capacity: half)
        workImaginary.initialize(repeating: 0, count: half)
    }

    deinit {
        bitReversed.deallocate()
        twiddleReal.deallocate(); twiddleImaginary.deallocate()
        splitReal.deallocate(); splitImaginary.deallocate()
        workReal.deallocate(); workImaginary.deallocate()
    }

    /// Transforms `size` real samples at `input` into `binCount` complex bins (`real`,
    /// `imaginary`, each with room for `binCount` values).
    public func forward(_ input: UnsafePointer<Float>, real: UnsafeMutablePointer<Float>,
                        imaginary: UnsafeMutablePointer<Float>) {
        // Pack even samples as real parts, odd as imaginary, in bit-reversed order.
        for index in 0..<half {
            let target = bitReversed[index]
            workReal[target] = input[2 * index]
            workImaginary[target] = input[2 * index + 1]
        }
        transformHalf()
        // Split: Xe[k] = (Z[k] + Z*[h−k]) / 2, Xo[k] = (Z[k] − Z*[h−k]) / 2i, X[k] = Xe + W^k·Xo.
        real[0] = workReal[0] + workImaginary[0]
        imaginary[0] = 0
        real[half] = workReal[0] - workImaginary[0]
        imaginary[half] = 0
        for k in 1..<half {
            let zr = workReal[k], zi = workImaginary[k]
            let cr = workReal[half - k], ci = -workImaginary[half - k]
            let evenReal = 0.5 * (zr + cr), evenImaginary = 0.5 * (zi + ci)
            // (Z − conj) / 2i = (dr + i·di) / 2i = (di − i·dr) / 2
            let dr = zr - cr, di = zi - ci
            let oddReal = 0.5 * di, oddImaginary = -0.5 * dr
            let wr = splitReal[k], wi = splitImaginary[k]
            real[k] = evenReal + wr * oddReal - wi * oddImaginary
            imaginary[k] = evenImaginary + wr * oddImaginary + wi * oddReal
        }
    }

    /// Transforms `binCount` complex bins back into `size` real samples at `output` (scaled by
    /// 1/`size`: the exact inverse of `forward`). The imaginary parts of bins 0 and N/2 are
    /// ignored (a real signal has none).
    public func inverse(real: UnsafePointer<Float>, imaginary: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
        // Unsplit: Xe[k] = (X[k] + X*[h−k]) / 2, Xo[k] = (X[k] − X*[h−k])·W^−k / 2, Z = Xe + i·Xo.
        for k in 0..<half {
            let xr = real[k], xi = k == 0 ? 0 : imaginary[k]
            let cr = real[half - k], ci = k == 0 ? 0 : -imaginary[half - k]
            let evenReal = 0.5 * (xr + cr), evenImaginary = 0.5 * (xi + ci)
            let dr = 0.5 * (xr - cr), di = 0.5 * (xi - ci)
            let wr = splitReal[k], wi = -splitImaginary[k]  // W^−k
            let oddReal = dr * wr - di * wi, oddImaginary = dr * wi + di * wr
            let target = bitReversed[k]
            // Conjugate in, conjugate out: the forward transform computes the inverse.
            workReal[target] = evenReal - oddImaginary
            workImaginary[target] = -(evenImaginary + oddReal)
        }
        transformHalf()
        let scale = 1 / Float(half)
        for index in 0..<half {
            output[2 * index] = workReal[index] * scale
            output[2 * index + 1] = -workImaginary[index] * scale
        }
    }

    /// In-place iterative radix-2 complex FFT of length `half` on the bit-reversed work buffers.
    private func transformHalf() {
        var span = 1
        var twiddleStride = half / 2
        while span < half {
            var start = 0
            while start < half {
                var twiddle = 0
                for index in start..<(start + span) {
                    let wr = twiddleReal[twiddle], wi = twiddleImaginary[twiddle]
                    let other = index + span
                    let tr = workReal[other] * wr - workImaginary[other] * wi
                    let ti = workReal[other] * wi + workImaginary[other] * wr
                    workReal[other] = workReal[index] - tr
                    workImaginary[other] = workImaginary[index] - ti
                    workReal[index] += tr
                    workImaginary[index] += ti
                    twiddle += twiddleStride
                }
                start += 2 * span
            }
            span *= 2
            twiddleStride /= 2
        }
    }
}
