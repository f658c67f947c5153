// SPDX-License-Identifier: Apache-2.0
import DSP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Short-time Fourier framing of one signal with 50 % overlap: each frame is analysed together
/// with the one before it (a block of 2 × `frameCount` samples under a square-root periodic
/// Hann window, zero-padded to a power of two), and a spectrum is synthesized back through the
/// same window and overlap-added to the second half of the previous block.
///
/// Why this window: analysis × synthesis = Hann, and periodic Hann windows shifted by half their
/// length sum to exactly 1, so analysis followed by synthesis reconstructs the signal with unit
/// gain. The price of overlapping is one frame of latency (`latencySamples`): a frame's second
/// half is complete only once the next frame's block has been added to it.
///
/// Samples are 16-bit PCM, scaled to ±1 in the time domain. Everything is allocated in `init`.
final class STFTFraming {
    /// Samples per frame (the hop).
    let frameCount: Int
    /// Samples per analysis block: two frames.
    let blockCount: Int
    /// Delay from analysis to synthesis, in samples: one frame.
    var latencySamples: Int { frameCount }
    /// Transform length: the smallest power of two (at least 4) holding a block.
    var transformSize: Int { fft.size }
    /// Bins of each spectrum.
    var binCount: Int { fft.binCount }

    private let fft: RealFFT
    private let window: UnsafeMutablePointer<Float>
    private let timeBuffer: UnsafeMutablePointer<Float>
    /// The last analysed frame (the first half of the next block), scaled to ±1.
    private let previous: UnsafeMutablePointer<Float>
    /// The windowed second half of the last synthesized block, waiting for the next one.
    private let overlap: UnsafeMutablePointer<Float>

    /// Framing for frames of `frameCount` samples.
    init(frameCount: Int) {
        precondition(frameCount > 0, "STFTFraming: frameCount must be positive")
        self.frameCount = frameCount
        blockCount = 2 * frameCount
        var size = 4
        while size < blockCount { size *= 2 }
        fft = RealFFT(size: size)
        window = .allocate(capacity: blockCount, filledWith: 0)
        for index in 0..<blockCount {
            window[index] = Float(sin(Double.pi * Double(index) / Double(blockCount)))
        }
        timeBuffer = .allocate(capacity: size, filledWith: 0)
        previous = .allocate(capacity: frameCount, filledWith: 0)
        overlap = .allocate(capacity: frameCount, filledWith: 0)
    }

    deinit {
        window.deallocate()
        timeBuffer.deallocate()
        previous.deallocate()
        overlap.deallocate()
    }

    /// Forgets the previous frame and the pending overlap (as if the signal had been silent).
    func reset() {
        previous.update(repeating: 0, count: frameCount)
        overlap.update(repeating: 0, count: frameCount)
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
    /// overlap plus this block's first half — to `output` (`frameCount` samples, rounded and
    /// clipped to 16 bits); keeps the second half for the next call.
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
        for index in 0..<frameCount {
            let sample = overlap[index] + timeBuffer[index] * window[index]
            overlap[index] = timeBuffer[index + frameCount] * window[index + frameCount]
            emit(index, sample)
        }
    }
}
