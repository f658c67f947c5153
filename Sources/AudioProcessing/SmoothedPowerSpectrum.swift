// SPDX-License-Identifier: Apache-2.0
/// A power spectrum averaged over frames: per bin, power ← smoothing × power + (1 − smoothing)
/// × this frame's power. A single frame's power fluctuates too much to compare against an
/// echo estimate bin by bin; the average over a few frames does not.
final class SmoothedPowerSpectrum {
    /// Number of bins.
    let binCount: Int
    /// Weight of the past per frame (0: this frame only … toward 1: a long memory).
    let smoothing: Float
    /// The smoothed power per bin.
    let power: UnsafeMutablePointer<Float>

    /// A zero spectrum of `binCount` bins with the given per-frame `smoothing`.
    init(binCount: Int, smoothing: Float) {
        self.binCount = binCount
        self.smoothing = smoothing
        power = .allocate(capacity: binCount, filledWith: 0)
    }

    deinit { power.deallocate() }

    /// Forgets the average.
    func reset() { power.update(repeating: 0, count: binCount) }

    /// Adds this frame's power of `spectrum`.
    func update(_ spectrum: Spectrum) {
        for bin in 0..<binCount {
            power[bin] = smoothing * power[bin] + (1 - smoothing) * spectrum.power(bin)
        }
    }

    /// Adds this frame's power of the difference `minuend − subtrahend`, bin by bin.
    func update(difference minuend: Spectrum, _ subtrahend: Spectrum) {
        for bin in 0..<binCount {
            let real = minuend.real[bin] - subtrahend.real[bin]
            let imaginary = minuend.imaginary[bin] - subtrahend.imaginary[bin]
            power[bin] = smoothing * power[bin] + (1 - smoothing) * (real * real + imaginary * imaginary)
        }
    }
}
