// SPDX-License-Identifier: Apache-2.0
/// A one-sided spectrum of `binCount` complex bins, real and imaginary parts in two arrays
/// allocated once: what the residual echo suppressor's parts hand each other every frame.
final class Spectrum {
    /// Number of bins (transform size / 2 + 1).
    let binCount: Int
    /// Real parts, `binCount` of them.
    let real: UnsafeMutablePointer<Float>
    /// Imaginary parts, `binCount` of them.
    let imaginary: UnsafeMutablePointer<Float>

    /// A spectrum of `binCount` zero bins.
    init(binCount: Int) {
        self.binCount = binCount
        real = .allocate(capacity: binCount, filledWith: 0)
        imaginary = .allocate(capacity: binCount, filledWith: 0)
    }

    deinit {
        real.deallocate()
        imaginary.deallocate()
    }

    /// |X[bin]|², the bin's power.
    @inline(__always)
    func power(_ bin: Int) -> Float { real[bin] * real[bin] + imaginary[bin] * imaginary[bin] }
}
