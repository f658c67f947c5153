// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing

/// Spectra with chosen powers per bin, for the residual echo suppressor's parts.
extension Spectrum {
    /// A spectrum whose bin b has power `powers[b]` (a real value: its square root).
    static func withPowers(_ powers: [Float]) -> Spectrum {
        let spectrum = Spectrum(binCount: powers.count)
        spectrum.set(powers)
        return spectrum
    }

    /// Sets bin b to the real value √`powers[b]`.
    func set(_ powers: [Float]) {
        for bin in 0..<binCount {
            real[bin] = powers[bin].squareRoot()
            imaginary[bin] = 0
        }
    }

    /// Every bin's power.
    var powers: [Float] { (0..<binCount).map { power($0) } }
}

/// A buffer of `count` floats as an array, for reading the parts' per-bin state.
func values(_ pointer: UnsafePointer<Float>, _ count: Int) -> [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
