// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tracks the stationary noise floor of a signal per bin, for comfort noise and so that the
/// near-end detector does not take background noise for a talker.
///
/// Minimum statistics: the bin's power, smoothed over ~60 ms, is followed by a minimum that
/// moves a tenth of the way down per frame when the power falls below it and rises at 1 dB/s
/// (`riseDbPerSecond`) while the power stays above it; the floor is that minimum times its
/// bias (`bias`). Updated in every frame, echo and speech included: the minimum reaches into
/// the pauses of both talkers, where only noise is left.
///
/// Why it rises slowly: during continuous far-end speech the smoothed power rarely dips to the
/// noise, and a minimum that rose quickly (or a minimum over a window of a second or two)
/// climbs onto the echo's own level and fills suppressed frames with echo-level noise. Slow,
/// it stays at the last true pause's level. The price: a noise that gets louder is followed at
/// 1 dB/s, while a quieter one is followed without a rate limit (20 dB down within a second).
///
/// With a window (`init(…, windowSeconds:)`, for noise suppression, where a fan that starts
/// mid-call must not stay unsuppressed for a minute), the floor is also never below the
/// smallest smoothed power of the last `windowSeconds` (Martin's minimum statistics, kept in
/// four sub-windows): a louder noise is followed once it has lasted a window, while a talker
/// who pauses within the window still keeps the floor at the pause's level.
final class NoiseFloorTracker {
    /// Rise of the minimum while the power stays above it, in dB per second.
    static let riseDbPerSecond = 1.0
    /// Share of the way to a lower smoothed power the minimum moves per frame. Not all of it:
    /// single deep dips of a noise's own fluctuation would pull the floor down.
    static let fallShare: Float = 0.1
    /// The tracked minimum lies below the noise's mean power; measured on white and pink noise
    /// at 16 kHz with 10 ms frames, × 1.7 (2.3 dB) brings it back within 1 dB.
    static let bias: Float = 1.7
    /// Time constant of the power smoothing before the minimum, in ms: long enough to lower
    /// the variance (so the minimum sits near the noise's mean), short enough to reach into
    /// the pauses between words.
    static let smoothingMs = 60.0

    /// Number of bins.
    let binCount: Int
    /// The noise floor per bin (bias-corrected minimum), in the power units of the analysis
    /// spectrum.
    let power: UnsafeMutablePointer<Float>

    /// The smoothed input power per bin; negative until the first frame.
    private let input: UnsafeMutablePointer<Float>
    /// The tracked minimum per bin, before the bias correction.
    private let minimum: UnsafeMutablePointer<Float>
    /// Weight of the past in the input smoothing per frame.
    private let inputSmoothing: Float
    /// Factor per frame by which the minimum rises.
    private let rise: Float
    /// Lowest floor per bin: the quantization noise of 16-bit samples (−101 dBFS) in analysis
    /// power units, so the multiplicative rise can start from digital silence.
    private let lowest: Float
    private let transformSize: Int
    private let blockCount: Int
    /// Window minimum: the running minimum of the current sub-window per bin, then the minima
    /// of the `subWindowCount` sub-windows before it (bin-major); nil without a window.
    private let window: UnsafeMutablePointer<Float>?
    /// Frames per sub-window, and frames into the current one.
    private let subWindowFrames: Int
    private var subWindowFrame = 0
    /// Sub-windows kept besides the current one.
    static let subWindowCount = 3

    /// A tracker for spectra of `binCount` bins from `STFTFraming` blocks of `blockCount`
    /// samples, zero-padded to `transformSize`, one every `frameDurationMs`; with
    /// `windowSeconds`, a louder noise is followed once it has lasted that long.
    init(binCount: Int, blockCount: Int, transformSize: Int, frameDurationMs: Float, windowSeconds: Double? = nil) {
        self.binCount = binCount
        self.blockCount = blockCount
        self.transformSize = transformSize
        inputSmoothing = Float(exp(-Double(frameDurationMs) / Self.smoothingMs))
        rise = Float(pow(10, 0.1 * Self.riseDbPerSecond * Double(frameDurationMs) / 1_000))
        lowest = Float(blockCount) / 2 / (12 * 32_768 * 32_768)
        power = .allocate(capacity: binCount, filledWith: 0)
        input = .allocate(capacity: binCount, filledWith: -1)
        minimum = .allocate(capacity: binCount, filledWith: 0)
        if let windowSeconds {
            let frames = windowSeconds * 1_000 / Double(frameDurationMs) / Double(Self.subWindowCount + 1)
            subWindowFrames = max(1, Int(frames.rounded()))
            window = .allocate(capacity: binCount * (Self.subWindowCount + 1), filledWith: 0)
        } else {
            subWindowFrames = 1
            window = nil
        }
    }

    deinit {
        power.deallocate()
        input.deallocate()
        minimum.deallocate()
        window?.deallocate()
    }

    /// Forgets the floor; the next frame sets every minimum.
    func reset() {
        power.update(repeating: 0, count: binCount)
        input.update(repeating: -1, count: binCount)
        minimum.update(repeating: 0, count: binCount)
        window?.update(repeating: 0, count: binCount * (Self.subWindowCount + 1))
        subWindowFrame = 0
    }

    /// Follows this frame's `spectrum`.
    func update(_ spectrum: Spectrum) {
        let alpha = inputSmoothing
        for bin in 0..<binCount {
            let binPower = spectrum.power(bin)
            let first = input[bin] < 0
            let smoothed = first ? binPower : alpha * input[bin] + (1 - alpha) * binPower
            input[bin] = smoothed
            var floor = minimum[bin]
            if first {
                floor = smoothed
            } else if smoothed < floor {
                floor += Self.fallShare * (smoothed - floor)
            } else {
                floor *= rise
            }
            floor = max(floor, lowest)
            minimum[bin] = floor
            if let window { floor = max(floor, Self.windowMinimum(window + bin * (Self.subWindowCount + 1), smoothed, first)) }
            power[bin] = Self.bias * floor
        }
        if window != nil { advanceSubWindow() }
    }

    /// Takes `smoothed` into a bin's current sub-window minimum (`slots[0]`, after the first
    /// frame of a sub-window or the first frame of all: `first`) and returns the window's.
    private static func windowMinimum(_ slots: UnsafeMutablePointer<Float>, _ smoothed: Float, _ first: Bool) -> Float {
        if first {
            for slot in 0...subWindowCount { slots[slot] = smoothed }
        } else {
            slots[0] = min(slots[0], smoothed)
        }
        var smallest = slots[0]
        for slot in 1...subWindowCount { smallest = min(smallest, slots[slot]) }
        return smallest
    }

    /// After a sub-window's last frame, shifts every bin's minima by one: the current one
    /// becomes the newest past one and the oldest is dropped; the new current one starts at
    /// +∞ so that the next frame sets it.
    private func advanceSubWindow() {
        subWindowFrame += 1
        guard subWindowFrame == subWindowFrames, let window else { return }
        subWindowFrame = 0
        let slotCount = Self.subWindowCount + 1
        for bin in 0..<binCount {
            let slots = window + bin * slotCount
            for slot in stride(from: Self.subWindowCount, to: 0, by: -1) { slots[slot] = slots[slot - 1] }
            slots[0] = .infinity
        }
    }

    /// The floor as an RMS level in dBFS (0 dB: a full-scale square wave), computed from the
    /// per-bin estimate.
    var levelDbFS: Float {
        var total: Float = 0
        for bin in 0..<binCount { total += power[bin] }
        // One-sided bins count twice in the full spectrum; Parseval over the transform size
        // and the analysis window's energy (block / 2) give the power per sample.
        let perSample = 4 * total / (Float(transformSize) * Float(blockCount))
        return 10 * Float(log10(Double(max(perSample, 1e-20))))
    }
}
