// SPDX-License-Identifier: Apache-2.0
/// Noise suppression on its own, for a chain without our residual echo suppressor (echo
/// cancellation off, or another residual suppressor chosen): the signal is framed
/// (`STFTFraming`), gained by `SpectralNoiseGain` and synthesized by overlap-add, one frame
/// late. With our residual echo suppressor the same gains run inside it instead
/// (`ResidualEchoSuppressor.noiseSuppressionDb`), at no delay of their own.
///
/// Everything is allocated in `init`; `process` allocates nothing.
final class NoiseSuppressor {
    /// Samples per frame.
    let frameCount: Int
    /// Delay the suppressor adds, in samples: one frame.
    var latencySamples: Int { framing.latencySamples }
    /// Largest attenuation of stationary noise, in dB (negative).
    var floorDb: Float {
        get { gain.floorDb }
        set { gain.floorDb = newValue }
    }

    private let framing: STFTFraming
    private let spectrum: Spectrum
    private let gain: SpectralNoiseGain

    /// A suppressor for frames of `frameCount` samples at `sampleRate`, at most `floorDb` deep.
    init(frameCount: Int, sampleRate: Int, floorDb: Float) {
        self.frameCount = frameCount
        framing = STFTFraming(frameCount: frameCount)
        spectrum = Spectrum(binCount: framing.binCount)
        gain = SpectralNoiseGain(binCount: framing.binCount, blockCount: framing.blockCount,
                                 transformSize: framing.transformSize,
                                 frameDurationMs: Float(frameCount) * 1_000 / Float(sampleRate), floorDb: floorDb)
    }

    /// Forgets the noise and the signal history.
    func reset() {
        framing.reset()
        gain.reset()
    }

    /// Suppresses the noise in `frameCount` samples, in place, `latencySamples` late.
    func process(_ samples: UnsafeMutablePointer<Int16>) {
        framing.analyze(samples, into: spectrum)
        gain.update(spectrum)
        for bin in 0..<spectrum.binCount {
            spectrum.real[bin] *= gain.gain[bin]
            spectrum.imaginary[bin] *= gain.gain[bin]
        }
        framing.synthesize(spectrum, into: samples)
    }
}
