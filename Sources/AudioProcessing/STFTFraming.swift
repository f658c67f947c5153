// SPDX-License-Identifier: Apache-2.0
import DSP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Short-time Fourier framing of one signal: each frame is analysed together with the one
/// before it (a block of 2 × `frameCount` samples under an analysis window, zero-padded to a
/// power of two), and a spectrum is synthesized back through a synthesis window and
/// overlap-added to the end of the previous block.
///
/// By default (`overlapCount` = `frameCount`) both windows are the square-root periodic Hann:
/// analysis × synthesis = Hann, and periodic Hann windows shifted by half their length sum to
/// exactly 1, so analysis followed by synthesis reconstructs the signal with unit gain. The
/// price is a frame of latency (`latencySamples`): a frame's second half is complete only once
/// the next frame's block has been added to it.
///
/// With a shorter `overlapCount` the windows are asymmetric (low-delay weighted overlap-add,
/// after Mauler and Martin): the synthesis window covers only the block's last `frameCount +
/// overlapCount` samples and successive blocks crossfade over `overlapCount` samples, so the
/// latency is that crossfade, not the frame. The analysis window still spans the whole block:
/// a rising half Hann (sin²) over all but the last `overlapCount` samples, then a quarter
/// cosine falling over them. Analysis × synthesis is 1 between the crossfades and sin² / cos²
/// across them, which sum to exactly 1 again. (A quarter-sine rise, a sin³ rise and a flat top
/// that rises over the first `frameCount − overlapCount` samples alone each cost the gained
/// speech of `benchmarks processing` more.) Its energy is not the Hann's: such spectra are for
/// gaining and synthesis, not for power models.
///
/// Samples are 16-bit PCM, scaled to ±1 in the time domain. Everything is allocated in `init`.
final class STFTFraming {
    /// Samples per frame (the hop).
    let frameCount: Int
    /// Samples per analysis block: two frames.
    let blockCount: Int
    /// Samples over which successive synthesized blocks crossfade: `frameCount` (50 % overlap)
    /// or fewer (asymmetric windows).
    let overlapCount: Int
    /// Delay from analysis to synthesis, in samples: the crossfade (a frame by default).
    var latencySamples: Int { overlapCount }
    /// Transform length: the smallest power of two (at least 4) holding a block.
    var transformSize: Int { fft.size }
    /// Bins of each spectrum.
    var binCount: Int { fft.binCount }

    private let fft: RealFFT
    private let window: UnsafeMutablePointer<Float>
    /// The synthesis window over the block (zero before its last `frameCount + overlapCount`
    /// samples); the analysis window itself when the overlap is a frame.
    private let synthesisWindow: UnsafeMutablePointer<Float>
    private let timeBuffer: UnsafeMutablePointer<Float>
    /// The last analysed frame (the first half of the next block), scaled to ±1.
    private let previous: UnsafeMutablePointer<Float>
    /// The windowed end (`overlapCount` samples) of the last synthesized block, waiting for the next one.
    private let overlap: UnsafeMutablePointer<Float>

    /// Framing for frames of `frameCount` samples whose synthesis crossfades over
    /// `overlapCount` of them (1…`frameCount`; nil: `frameCount`).
    init(frameCount: Int, overlapCount: Int? = nil) {
        precondition(frameCount > 0, "STFTFraming: frameCount must be positive")
        let overlapCount = overlapCount ?? frameCount
        precondition(overlapCount > 0 && overlapCount <= frameCount, "STFTFraming: overlapCount must be in 1...frameCount")
        self.frameCount = frameCount
        self.overlapCount = overlapCount
        blockCount = 2 * frameCount
        var size = 4
        while size < blockCount { size *= 2 }
        fft = RealFFT(size: size)
        window = .allocate(capacity: blockCount, filledWith: 0)
        synthesisWindow = .allocate(capacity: blockCount, filledWith: 0)
        if overlapCount == frameCount {
            for index in 0..<blockCount {
                window[index] = Float(sin(Double.pi * Double(index) / Double(blockCount)))
                synthesisWindow[index] = window[index]
            }
        } else {
            let rise = blockCount - overlapCount, synthesisStart = frameCount - overlapCount
            for index in 0..<blockCount {
                let analysis: Double
                if index < rise {
                    let x = sin(Double.pi / 2 * Double(index) / Double(rise))
                    analysis = x * x
                } else {
                    analysis = cos(Double.pi / 2 * Double(index - rise) / Double(overlapCount))
                }
                window[index] = Float(analysis)
                // Analysis × synthesis: sin² up over the crossfade in, 1, cos² down over the one out.
                let product: Double
                if index < synthesisStart {
                    product = 0
                } else if index < frameCount {
                    let x = sin(Double.pi / 2 * Double(index - synthesisStart) / Double(overlapCount))
                    product = x * x
                } else if index < rise {
                    product = 1
                } else {
                    product = analysis * analysis
                }
                synthesisWindow[index] = analysis > 0 ? Float(product / analysis) : 0
            }
        }
        timeBuffer = .allocate(capacity: size, filledWith: 0)
        previous = .allocate(capacity: frameCount, filledWith: 0)
        overlap = .allocate(capacity: overlapCount, filledWith: 0)
    }

    deinit {
        window.deallocate()
        synthesisWindow.deallocate()
        timeBuffer.deallocate()
        previous.deallocate()
        overlap.deallocate()
    }

    /// Forgets the previous frame and the pending overlap (as if the signal had been silent).
    func reset() {
        previous.update(repeating: 0, count: frameCount)
        overlap.update(repeating: 0, count: overlapCount)
    }

    /// Windows the previous frame and `samples` (`frameCount` of them) into one block and
    /// transforms it into `spectrum`.
    func analyze(_ samples: UnsafePointer<Int16>, into spectrum: Spectrum) {
        let scale: Float = 1 / 32_768
        for index in 0..<frameCount {
            timeBuffer[index] = previous[index] * window[index]
            let current = Float(samples[index]) * scale
            timeBuffer[index + frameCount] = current * window[index + frameCount]
            previous[index] = current
        }
        for index in blockCount..<fft.size { timeBuffer[index] = 0 }
        fft.forward(timeBuffer, real: spectrum.real, imaginary: spectrum.imaginary)
    }

    /// Transforms `spectrum` back, windows it, and writes the completed frame — the pending
    /// overlap plus this block's samples up to its last `overlapCount` — to `output`
    /// (`frameCount` samples, rounded and clipped to 16 bits); keeps those last for the next call.
    func synthesize(_ spectrum: Spectrum, into output: UnsafeMutablePointer<Int16>) {
        synthesizeFrame(spectrum) { index, sample in
            output[index] = Int16(max(-32_768, min(32_767, (sample * 32_768).rounded())))
        }
    }

    /// As `synthesize(_:into:)`, adding the completed frame (scaled to ±1) to `output`.
    func synthesize(_ spectrum: Spectrum, adding output: UnsafeMutablePointer<Float>) {
        synthesizeFrame(spectrum) { index, sample in output[index] += sample }
    }

    @inline(__always)
    private func synthesizeFrame(_ spectrum: Spectrum, _ emit: (Int, Float) -> Void) {
        fft.inverse(real: spectrum.real, imaginary: spectrum.imaginary, output: timeBuffer)
        let start = frameCount - overlapCount, end = blockCount - overlapCount
        for index in 0..<overlapCount {
            emit(index, overlap[index] + timeBuffer[start + index] * synthesisWindow[start + index])
            overlap[index] = timeBuffer[end + index] * synthesisWindow[end + index]
        }
        for index in overlapCount..<frameCount {
            emit(index, timeBuffer[start + index] * synthesisWindow[start + index])
        }
    }
}
