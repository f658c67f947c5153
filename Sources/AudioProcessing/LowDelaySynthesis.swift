// SPDX-License-Identifier: Apache-2.0
/// The residual echo suppressor's gains applied through asymmetric windows (`STFTFraming` with
/// an `overlapCount` shorter than the hop), so that its output is the crossfade late instead
/// of a hop. The suppressor still analyses on its 50 % overlapping square-root Hann windows —
/// its models, and so its gains, are what they are at a hop's delay — and this frames the same
/// linear-filter output and microphone a second time under the low-delay analysis window,
/// takes each bin from the signal the gain is for, gains it and synthesizes.
///
/// Why not analyse everything on the low-delay window: the models then see spectra weighted
/// toward each block's newest samples, and the demo's Bob → Alice lost 0.13 PESQ-WB over 16
/// seeds of its default network (0.08 with the gains from the Hann analysis). Why the
/// crossfade is half the hop: the samples a block finishes are centred a hop and a half less
/// the crossfade before its end, where the Hann analysis window is centred when the crossfade
/// is half the hop; the gains then land on the audio they were computed from (a 2.5 or 7.5 ms
/// crossfade on 10 ms hops scored 0.05–0.1 lower on `benchmarks processing`).
///
/// Everything is allocated in `init`; `synthesize` allocates nothing.
final class LowDelaySynthesis {
    /// Delay from analysis to synthesis, in samples: the crossfade between hops.
    var latencySamples: Int { outputFraming.latencySamples }

    private let outputFraming: STFTFraming
    private let microphoneFraming: STFTFraming
    private let output: Spectrum
    private let microphone: Spectrum

    /// Synthesis for hops of `hopCount` samples crossfading over `crossfadeCount` (1…`hopCount`).
    init(hopCount: Int, crossfadeCount: Int) {
        outputFraming = STFTFraming(frameCount: hopCount, overlapCount: crossfadeCount)
        microphoneFraming = STFTFraming(frameCount: hopCount, overlapCount: crossfadeCount)
        output = Spectrum(binCount: outputFraming.binCount)
        microphone = Spectrum(binCount: outputFraming.binCount)
    }

    /// Forgets the signal history.
    func reset() {
        outputFraming.reset()
        microphoneFraming.reset()
    }

    /// Frames the hop's `linearOutput` and `microphone` (`hopCount` samples each), takes the
    /// microphone's bins where `fromMicrophone` is non-zero, applies `gains` and adds the
    /// finished samples (scaled to ±1) to `mix`.
    func synthesize(linearOutput: UnsafePointer<Int16>, microphone samples: UnsafePointer<Int16>,
                    fromMicrophone: UnsafePointer<Float>, gains: UnsafePointer<Float>, adding mix: UnsafeMutablePointer<Float>) {
        outputFraming.analyze(linearOutput, into: output)
        microphoneFraming.analyze(samples, into: microphone)
        for bin in 0..<output.binCount {
            if fromMicrophone[bin] != 0 {
                output.real[bin] = microphone.real[bin]
                output.imaginary[bin] = microphone.imaginary[bin]
            }
            output.real[bin] *= gains[bin]
            output.imaginary[bin] *= gains[bin]
        }
        outputFraming.synthesize(output, adding: mix)
    }
}
