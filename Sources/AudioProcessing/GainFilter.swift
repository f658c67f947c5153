// SPDX-License-Identifier: Apache-2.0
import DSP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Applies a gain per frequency bin to a signal in the time domain, through a short
/// linear-phase filter made from the gains each frame (a filter-bank equalizer), so the signal
/// is delayed by half the filter (`latencySamples`) instead of the whole frame an overlap-add
/// synthesis costs.
///
/// Each frame the gains (real, on the bins of a `transformSize`-point transform) are turned
/// into their zero-phase impulse response, cut to 2 × `halfLength` + 1 taps under a Hann taper
/// and delayed by `halfLength` to be causal. The taper trades frequency detail for delay: the
/// applied curve is the gains smoothed over about `sampleRate / halfLength` Hz. Gains of 1 in
/// every bin give a single tap of 1: the signal passes exactly, `halfLength` samples late.
///
/// A new filter takes over from the last one with a linear crossfade over the frame's first
/// `crossfadeSamples`, so a gain that changes from one frame to the next does not click.
/// Everything is allocated in `init`; `setGains` and `apply` allocate nothing.
final class GainFilter {
    /// Samples per frame.
    let frameCount: Int
    /// Taps on each side of the centre tap.
    let halfLength: Int
    /// Samples over which a new filter fades in at the start of a frame.
    let crossfadeSamples: Int
    /// Delay the filter adds, in samples.
    var latencySamples: Int { halfLength }

    private let fft: RealFFT
    private let zeros: UnsafeMutablePointer<Float>
    /// The gains' zero-phase impulse response, and the causal taps made from it.
    private let impulse: UnsafeMutablePointer<Float>
    private let taps: UnsafeMutablePointer<Float>
    private let taper: UnsafeMutablePointer<Float>
    /// The causal filter's spectrum (taps 0…2 × `halfLength` at the transform's size), this
    /// frame's and the last frame's.
    private var response: Spectrum
    private var previousResponse: Spectrum
    private var responseIsZero: Bool
    private var previousResponseIsZero: Bool
    /// Whether the gains were 1 in every bin (the filter is a delay: no transform needed).
    private var responseIsUnity: Bool
    private var previousResponseIsUnity: Bool
    /// The last 2 × `halfLength` input samples, then the current frame's (scaled to ±1), then
    /// zeros to the transform's size.
    private let history: UnsafeMutablePointer<Float>
    private let input: Spectrum
    private let product: Spectrum
    private let filtered: UnsafeMutablePointer<Float>
    private let fading: UnsafeMutablePointer<Float>
    private let initialGain: Float

    /// A filter for frames of `frameCount` samples, gains on the bins of a `transformSize`-point
    /// transform (a power of two), `halfLength` taps each side (the taps and a frame must fit
    /// the transform), starting with the same gain `initialGain` in every bin.
    init(transformSize: Int, frameCount: Int, halfLength: Int, initialGain: Float = 1) {
        precondition(frameCount > 0 && halfLength >= 0 && 2 * halfLength + frameCount <= transformSize,
                     "GainFilter: a positive frame and its taps within the transform")
        self.frameCount = frameCount
        self.halfLength = halfLength
        self.initialGain = initialGain
        crossfadeSamples = frameCount / 2
        fft = RealFFT(size: transformSize)
        zeros = .allocate(capacity: fft.binCount, filledWith: 0)
        impulse = .allocate(capacity: transformSize, filledWith: 0)
        taps = .allocate(capacity: transformSize, filledWith: 0)
        taper = .allocate(capacity: halfLength + 1, filledWith: 1)
        for offset in 0...halfLength {
            taper[offset] = Float(0.5 * (1 + cos(Double.pi * Double(offset) / Double(halfLength + 1))))
        }
        response = Spectrum(binCount: fft.binCount)
        previousResponse = Spectrum(binCount: fft.binCount)
        responseIsZero = true
        previousResponseIsZero = true
        responseIsUnity = false
        previousResponseIsUnity = false
        history = .allocate(capacity: transformSize, filledWith: 0)
        input = Spectrum(binCount: fft.binCount)
        product = Spectrum(binCount: fft.binCount)
        filtered = .allocate(capacity: transformSize, filledWith: 0)
        fading = .allocate(capacity: transformSize, filledWith: 0)
        reset()
    }

    deinit {
        zeros.deallocate()
        impulse.deallocate()
        taps.deallocate()
        taper.deallocate()
        history.deallocate()
        filtered.deallocate()
        fading.deallocate()
    }

    /// Back to `initialGain` in every bin, with a silent history.
    func reset() {
        // A single tap of `initialGain` at the centre: a flat gain, `halfLength` late.
        taps.update(repeating: 0, count: fft.size)
        taps[halfLength] = initialGain
        fft.forward(taps, real: response.real, imaginary: response.imaginary)
        previousResponse.real.update(from: response.real, count: fft.binCount)
        previousResponse.imaginary.update(from: response.imaginary, count: fft.binCount)
        responseIsZero = initialGain == 0
        previousResponseIsZero = responseIsZero
        responseIsUnity = initialGain == 1
        previousResponseIsUnity = responseIsUnity
        history.update(repeating: 0, count: fft.size)
    }

    /// Makes the filter for the next frame from `gains` (`transformSize / 2 + 1` of them).
    func setGains(_ gains: UnsafePointer<Float>) {
        swap(&response, &previousResponse)
        previousResponseIsZero = responseIsZero
        previousResponseIsUnity = responseIsUnity
        var anyGain = false, allOne = true
        for bin in 0..<fft.binCount {
            let gain = gains[bin]
            if gain != 0 { anyGain = true }
            if gain != 1 { allOne = false }
        }
        responseIsZero = !anyGain
        responseIsUnity = allOne
        guard anyGain else { return }
        // Real gains: the impulse response is real and even, h[−n] = h[size − n]. Tapered and
        // moved `halfLength` later, it is causal; its spectrum is what `apply` multiplies by.
        fft.inverse(real: gains, imaginary: zeros, output: impulse)
        taps.update(repeating: 0, count: fft.size)
        taps[halfLength] = impulse[0]
        for offset in stride(from: 1, through: halfLength, by: 1) {
            let tap = impulse[offset] * taper[offset]
            taps[halfLength + offset] = tap
            taps[halfLength - offset] = tap
        }
        fft.forward(taps, real: response.real, imaginary: response.imaginary)
    }

    /// Filters the frame `input` (`frameCount` samples) and adds the result, `latencySamples`
    /// late and scaled to ±1, to `output`.
    func apply(_ samples: UnsafePointer<Int16>, adding output: UnsafeMutablePointer<Float>) {
        let past = 2 * halfLength
        // Shift the history and append the frame; the rest of the transform stays zero.
        history.update(from: history + frameCount, count: past)
        let scale: Float = 1 / 32_768
        for index in 0..<frameCount { history[past + index] = Float(samples[index]) * scale }
        guard !(responseIsZero && previousResponseIsZero) else { return }
        if responseIsUnity && previousResponseIsUnity {
            for index in 0..<frameCount { output[index] += history[past - halfLength + index] }
            return
        }
        // Linear convolution by the transform (taps and frame fit it): the frame's outputs are
        // the block's samples past the first 2 × `halfLength`.
        fft.forward(history, real: input.real, imaginary: input.imaginary)
        filter(by: response, zero: responseIsZero, into: filtered)
        let fade = min(crossfadeSamples, frameCount)
        if fade > 0 {
            filter(by: previousResponse, zero: previousResponseIsZero, into: fading)
            for index in 0..<fade {
                let weight = Float(index + 1) / Float(fade + 1)
                filtered[past + index] = fading[past + index] + weight * (filtered[past + index] - fading[past + index])
            }
        }
        for index in 0..<frameCount { output[index] += filtered[past + index] }
    }

    /// The history block filtered by `response` (its spectrum already in `input`), into `block`.
    private func filter(by response: Spectrum, zero: Bool, into block: UnsafeMutablePointer<Float>) {
        guard !zero else {
            block.update(repeating: 0, count: fft.size)
            return
        }
        for bin in 0..<fft.binCount {
            let xr = input.real[bin], xi = input.imaginary[bin]
            let hr = response.real[bin], hi = response.imaginary[bin]
            product.real[bin] = xr * hr - xi * hi
            product.imaginary[bin] = xr * hi + xi * hr
        }
        fft.inverse(real: product.real, imaginary: product.imaginary, output: block)
    }
}
