// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// Recursive power averaging per bin.
@Suite struct SmoothedPowerSpectrumTests {
    /// Each frame moves the average (1 − smoothing) of the way to the frame's power.
    @Test func movesTowardEachFramesPower() {
        let smoothed = SmoothedPowerSpectrum(binCount: 2, smoothing: 0.6)
        let spectrum = Spectrum.withPowers([1, 4])
        smoothed.update(spectrum)
        #expect(abs(smoothed.power[0] - 0.4) < 1e-6 && abs(smoothed.power[1] - 1.6) < 1e-6)
        for _ in 0..<60 { smoothed.update(spectrum) }
        #expect(abs(smoothed.power[0] - 1) < 1e-5 && abs(smoothed.power[1] - 4) < 1e-5)
        smoothed.reset()
        #expect(values(smoothed.power, 2) == [0, 0])
    }

    /// The difference form averages |a − b|², bin by bin (complex difference).
    @Test func averagesThePowerOfADifference() {
        let smoothed = SmoothedPowerSpectrum(binCount: 1, smoothing: 0)
        let a = Spectrum(binCount: 1), b = Spectrum(binCount: 1)
        a.real[0] = 3; a.imaginary[0] = 1
        b.real[0] = 1; b.imaginary[0] = -1
        smoothed.update(difference: a, b)
        #expect(smoothed.power[0] == 8)
    }
}
