// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Brings the talker's speech to a target level with a gain in the time domain, applied to
/// the frame it was computed for: no look-ahead and no framing, so it adds no delay
/// (speexdsp's AGC, which did this before, ran inside its preprocessor's overlap-add: 10 ms).
///
/// - The speech level is the mean power of the frames the caller calls speech (speech
///   probability at least `speechProbability`), smoothed with a weight that grows with the
///   probability, over about a third of a second: pauses, noise and held frames leave the
///   level and the gain alone, so the background does not pump up between words. The
///   smoothing is bias-corrected (divided by the smoothed weight, as speexdsp's loudness is),
///   so over the first speech frames the level is their mean, not the first frame's: an
///   onset, quieter than the words after it, left a call's first second 4 dB louder than the
///   rest (the demo's first sentence; 3.5 dB still with the rise held, below).
/// - The gain moves toward target ÷ level by at most `riseDbPerSecond` up and
///   `fallDbPerSecond` down, never above `maximumGainDb`, and up only while the level is known
///   (speexdsp's rates: 12 and 40 dB/s), and not up at all over the talker's first
///   `learningSpeechMs` of speech, while the level is still a few frames' mean.
/// - Within a frame the gain moves linearly from the last frame's, and it is lowered for the
///   frame so its loudest sample stays under `peakLimit` (speexdsp's 28 000): the frame is
///   known whole before it is gained, so no sample clips and nothing waits.
///
/// Everything is allocated in `init`; `process` allocates nothing.
struct AutomaticGainControl {
    /// Smallest speech probability (0–1) at which a frame counts toward the level.
    static let speechProbability: Float = 0.3
    /// Weight per frame, at a speech probability of 1, of a frame's power in the level
    /// (speexdsp's 0.03 per 10 ms frame: a time constant of about a third of a second).
    static let levelWeightPer10Ms: Float = 0.03
    /// Fastest rise of the gain, in dB per second.
    static let riseDbPerSecond: Float = 12
    /// Fastest fall of the gain, in dB per second.
    static let fallDbPerSecond: Float = 40
    /// Largest sample the gain may make, on the 16-bit scale.
    static let peakLimit: Float = 28_000
    /// Speech the level is learnt from before the gain may rise, in ms.
    static let learningSpeechMs: Float = 500

    /// Target RMS level of speech, linear on the 16-bit scale.
    var targetLevel: Float
    /// Most gain added, in dB.
    var maximumGainDb: Float {
        didSet { maximumGain = Self.linear(db: maximumGainDb) }
    }
    /// The gain toward the target (linear), before the peak limit.
    private(set) var gain: Float = 1
    /// The gain the last frame ended with, where the next one starts (linear).
    private var appliedGain: Float = 1
    /// The speech level, as a mean power on the 16-bit scale (0 until the first speech frame).
    var speechPower: Float { speechWeight > 0 ? weightedPower / speechWeight : 0 }
    /// The smoothed power of speech frames, and the smoothed weight it is divided by.
    private var weightedPower: Float = 0
    private var speechWeight: Float = 0

    private var maximumGain: Float
    private let levelWeight: Float
    private let risePerFrame: Float
    private let fallPerFrame: Float
    private let frameCount: Int
    /// Speech frames counted toward the level since the start, up to `learningFrames`.
    private var speechFrames = 0
    private let learningFrames: Int

    /// An AGC for frames of `frameCount` samples at `sampleRate`.
    init(frameCount: Int, sampleRate: Int, targetLevel: Float, maximumGainDb: Float) {
        self.frameCount = frameCount
        self.targetLevel = targetLevel
        self.maximumGainDb = maximumGainDb
        maximumGain = Self.linear(db: maximumGainDb)
        let frameMs = Float(frameCount) * 1_000 / Float(sampleRate)
        levelWeight = min(1, Self.levelWeightPer10Ms * frameMs / 10)
        risePerFrame = Self.linear(db: Self.riseDbPerSecond * frameMs / 1_000)
        fallPerFrame = Self.linear(db: -Self.fallDbPerSecond * frameMs / 1_000)
        learningFrames = Int((Self.learningSpeechMs / frameMs).rounded())
    }

    /// Back to unity gain and an unknown level.
    mutating func reset() {
        gain = 1
        appliedGain = 1
        weightedPower = 0
        speechWeight = 0
        speechFrames = 0
    }

    /// Gains `frameCount` samples in place. `speechProbability` (0–1) says how likely the frame
    /// is the talker's speech; `hold` keeps the level and the gain as they are (a frame that is
    /// mostly echo: lifting it would lift the echo).
    mutating func process(_ samples: UnsafeMutablePointer<Int16>, speechProbability: Float, hold: Bool) {
        var power: Float = 0, peak: Float = 0
        for index in 0..<frameCount {
            let sample = Float(samples[index])
            power += sample * sample
            peak = max(peak, abs(sample))
        }
        power /= Float(frameCount)
        if !hold, speechProbability >= Self.speechProbability, power > 0 {
            let weight = levelWeight * speechProbability * speechProbability
            weightedPower += weight * (power - weightedPower)
            speechWeight += weight * (1 - speechWeight)
            let wanted = min(targetLevel / speechPower.squareRoot(), maximumGain)
            if speechFrames < learningFrames { speechFrames += 1 }
            let highest = speechFrames < learningFrames ? gain : gain * risePerFrame
            gain = min(max(wanted, gain * fallPerFrame), highest)
        }
        // Every sample's gain stays under the one that would take the frame's peak past the limit.
        let limit = peak * gain > Self.peakLimit ? Self.peakLimit / peak : Float.infinity
        let start = appliedGain, end = min(gain, limit)
        appliedGain = end
        if start == 1, end == 1 { return }
        let step = (end - start) / Float(frameCount)
        for index in 0..<frameCount {
            let sampleGain = min(start + step * Float(index + 1), limit)
            samples[index] = Int16(max(-32_768, min(32_767, (Float(samples[index]) * sampleGain).rounded())))
        }
    }

    private static func linear(db: Float) -> Float { Float(pow(10, Double(db) / 20)) }
}
