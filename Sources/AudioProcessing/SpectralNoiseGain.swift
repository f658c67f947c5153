// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Noise suppression's gain per bin, computed on a spectrum the caller already has, so that it
/// costs no framing of its own: inside `ResidualEchoSuppressor` it multiplies the echo gains
/// and adds no delay (speexdsp's preprocessor, which did this before, overlap-adds a frame of
/// its own: 10 ms more mouth-to-ear).
///
/// Per bin: the stationary noise is tracked by minimum statistics (`NoiseFloorTracker` with a
/// window of `noiseWindowSeconds`: a noise that starts or grows mid-call is followed once it
/// has lasted that long, while a talker's pauses keep the floor at the noise); the a priori SNR is estimated decision-
/// directed (Ephraim and Malah: mostly the last frame's cleaned power, a little of this
/// frame's excess over the noise), which keeps the gain from flickering in noise-only bins
/// (musical noise); the gain is Wiener's, ξ / (1 + ξ), never under `floorDb`, smoothed over
/// three bins, and falls by at most `fallPerFrame` per 10 ms so that a word's fading tail is
/// not cut off (a rising gain follows at once: onsets are kept).
///
/// Where it starts: the first frame sets the noise floor. A talker from the very first frame
/// is taken for noise only until the floor falls into the first pause (a tenth of the way per
/// frame), not for as long as speexdsp's estimator, which learns at 1 / frames seen (see
/// `docs/performance.md`, voice processing).
///
/// Everything is allocated in `init`; `update` allocates nothing.
final class SpectralNoiseGain {
    /// How long a louder noise lasts before the floor follows it, in seconds. Not shorter:
    /// with 3 s the window's minimum climbed onto continuous speech (the benchmark's rows
    /// lost 0.06–0.1 PESQ against no window); with 8 s they are within 0.03 of no window,
    /// which would follow a fan that starts mid-call at 1 dB/s (a minute for 60 dB).
    static let noiseWindowSeconds = 8.0
    /// Weight of the last frame's cleaned power in the a priori SNR (decision-directed), per
    /// 10 ms: a frame of another length keeps the time constant (0.99 per 5 ms hop).
    static let priorSmoothing: Float = 0.98
    /// Largest fall of a bin's gain per 10 ms, as a factor (0.5: 6 dB), kept per ms for other
    /// frame lengths (3 dB per 5 ms hop). Both per hop instead, the suppressor on 5 ms hops
    /// (`EchoCanceller.Configuration.residualHopMs`) cost the demo's clean call 0.24 (`voicecall
    /// demo --fast --network none`, Alice → Bob 4.04 → 3.83).
    static let fallPerFrame: Float = 0.5

    /// Number of bins.
    let binCount: Int
    /// The gain per bin for the last spectrum (1: keep, `floorDb`: noise only).
    let gain: UnsafeMutablePointer<Float>
    /// The least gain per bin for the last spectrum: what a frame known to be noise only gets
    /// (`floorDb`, less where the noise is under a 16-bit step).
    let floorGain: UnsafeMutablePointer<Float>
    /// The tracked noise floor per bin, in the spectrum's power units.
    var noisePower: UnsafePointer<Float> { UnsafePointer(noise.power) }
    /// Smallest gain, in dB (negative): how far noise is pushed down.
    var floorDb: Float {
        didSet { floorLevel = Self.gain(forDb: floorDb) }
    }

    private var floorLevel: Float
    /// Noise power of one 16-bit step (1 LSB RMS) per bin, in analysis power units. As in
    /// speexdsp's denoiser, a bin's floor scales with √(noise / (noise + this)): where the
    /// noise is below the step there is no background to keep, so a digitally silent pause
    /// stays silent instead of keeping the dither of the stages before.
    private let stepNoise: Float
    private let noise: NoiseFloorTracker
    /// The last frame's cleaned power per bin (gain² × power); negative until the first frame.
    private let cleanPower: UnsafeMutablePointer<Float>
    /// Wiener gains of this frame before smoothing.
    private let raw: UnsafeMutablePointer<Float>
    /// `priorSmoothing` and `fallPerFrame` for this frame length.
    private let frameSmoothing: Float
    private let frameFall: Float

    /// Gains for spectra of `binCount` bins from `STFTFraming` blocks of `blockCount` samples
    /// zero-padded to `transformSize`, one every `frameDurationMs`, at most `floorDb` deep.
    init(binCount: Int, blockCount: Int, transformSize: Int, frameDurationMs: Float, floorDb: Float) {
        self.binCount = binCount
        self.floorDb = floorDb
        floorLevel = Self.gain(forDb: floorDb)
        stepNoise = Float(blockCount) / 2 / (32_768 * 32_768)
        noise = NoiseFloorTracker(binCount: binCount, blockCount: blockCount, transformSize: transformSize,
                                  frameDurationMs: frameDurationMs, windowSeconds: Self.noiseWindowSeconds)
        gain = .allocate(capacity: binCount, filledWith: 1)
        floorGain = .allocate(capacity: binCount, filledWith: 1)
        cleanPower = .allocate(capacity: binCount, filledWith: -1)
        raw = .allocate(capacity: binCount, filledWith: 1)
        let tenths = Double(frameDurationMs) / 10
        frameSmoothing = Float(pow(Double(Self.priorSmoothing), tenths))
        frameFall = Float(pow(Double(Self.fallPerFrame), tenths))
    }

    deinit {
        gain.deallocate()
        floorGain.deallocate()
        cleanPower.deallocate()
        raw.deallocate()
    }

    /// Forgets the noise floor and the gains.
    func reset() {
        noise.reset()
        gain.update(repeating: 1, count: binCount)
        cleanPower.update(repeating: -1, count: binCount)
    }

    /// Tracks the noise in `spectrum` and computes its gains; `noiseOnly` when the caller knows
    /// the frame holds nothing of the talker (the far end's echo alone), which then gets the
    /// floor in every bin.
    func update(_ spectrum: Spectrum, noiseOnly: Bool = false) {
        noise.update(spectrum)
        let smoothing = frameSmoothing, floor = floorLevel
        for bin in 0..<binCount {
            let power = spectrum.power(bin)
            let noisePower = max(noise.power[bin], Float.leastNormalMagnitude)
            let posterior = power / noisePower
            let excess = max(posterior - 1, 0)
            let previous = cleanPower[bin]
            let prior = previous < 0 ? excess : smoothing * previous / noisePower + (1 - smoothing) * excess
            let wiener = prior / (1 + prior)
            cleanPower[bin] = wiener * wiener * power
            let binFloor = floor * (noisePower / (noisePower + stepNoise)).squareRoot()
            floorGain[bin] = binFloor
            raw[bin] = noiseOnly ? binFloor : max(wiener, binFloor)
        }
        let fall = frameFall
        for bin in 0..<binCount {
            let low = raw[max(0, bin - 1)], high = raw[min(binCount - 1, bin + 1)]
            let smoothed = 0.25 * low + 0.5 * raw[bin] + 0.25 * high
            gain[bin] = max(smoothed, fall * gain[bin])
        }
    }

    /// `gains` (one of this spectrum's, such as `gain`) on the coarser bins of a transform
    /// `ratio` times shorter (a power of two), into `coarse` (`(binCount − 1) / ratio + 1` bins):
    /// each coarse bin takes the fine bins it spans, weighted by the coarse bin's triangular
    /// response (for 2: a quarter, a half, a quarter).
    func spread(_ gains: UnsafePointer<Float>, ratio: Int, into coarse: UnsafeMutablePointer<Float>) {
        let coarseCount = (binCount - 1) / ratio + 1
        for bin in 0..<coarseCount {
            let center = bin * ratio
            var total: Float = 0, weights: Float = 0
            for fine in max(0, center - ratio + 1)...min(binCount - 1, center + ratio - 1) {
                let weight = Float(ratio - abs(fine - center))
                total += weight * gains[fine]
                weights += weight
            }
            coarse[bin] = total / weights
        }
    }

    private static func gain(forDb db: Float) -> Float { Float(pow(10, Double(min(db, 0)) / 20)) }
}
