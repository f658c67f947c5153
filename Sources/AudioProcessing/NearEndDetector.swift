// SPDX-License-Identifier: Apache-2.0
/// Decides per frame whether the near end is talking: the frame holds near-end speech when
/// more than a share (`share`, 10 %) of the microphone's power lies above what the far end and
/// the background explain — in each bin, `echoMargin` (2) × the echo expected there plus
/// `noiseMargin` (2) × the bin's noise floor. The decision is held for 150 ms (`hangoverMs`).
///
/// Why per frame: one suppressor setting cannot serve both cases — removing a distorting
/// loudspeaker's echo needs a slow release and a large overdrive in every bin, keeping
/// near-end speech in double talk needs the opposite — so frames are classified and echo-only
/// frames get the aggressive treatment.
///
/// Why this feature: the expected echo (the larger of the power-domain model's prediction and
/// the echo the linear filter subtracted) comes from the far end alone; microphone power well
/// above it is something the far end did not cause. Its share of the microphone's power stays
/// small while only echo plays and jumps as soon as a talker speaks, even well below the
/// echo's level. Either echo estimate alone misses too often — the model misses distortion it
/// has not learnt and parts of reverberant tails, the linear filter misses distortion and
/// everything while it converges — and the maximum of the two rarely misses both. Coherence
/// would not do: near-end speech and a distorted echo both lower it.
///
/// Why decided on the current frame: a near-end onset is protected from its first frame. Why
/// the hangover: speech has short dips (stops, syllable and word ends) that must not count as
/// echo alone. A missed near-end frame is suppressed hard, so the detector errs toward
/// "near end".
///
/// Why the share drops to 5 % (`settledShare`) after 3.5 s of far-end activity (`settledMs`,
/// counted again after `forgetEchoPath`, as the linear filter is reset with it): a soft
/// talker's excess is a small share of the microphone's power, but before speexdsp has
/// converged (2.5–3.5 s of far end) its output jumps in reverberant tails, and those jumps must
/// still count as echo. Lower shares flag reverberant tails and distortion as near end.
final class NearEndDetector {
    /// Share of the microphone's power that must be unexplained while the linear filter settles.
    static let share: Float = 0.1
    /// The share once the linear filter has settled.
    static let settledShare: Float = 0.05
    /// Microphone power up to this × the expected echo in a bin is explained by the echo.
    static let echoMargin: Float = 2
    /// The margin in the bins that carry the echo (`prominence`): both echo estimates
    /// are averages over a bin, and a far-end harmonic that lands on a peak of the room's fine
    /// frequency response (whose power gain is roughly exponentially distributed within a bin)
    /// is echoed 5–9 dB above them. In the bins holding most of the echo, that alone is more
    /// than `settledShare` of the microphone's power; 4 (6 dB) covers all but ~2 % of such
    /// peaks. Near-end speech is rarely found there — the echo masks it — but in the bins
    /// where the echo is weak, which keep the margin of 2.
    static let prominentEchoMargin: Float = 4
    /// A bin whose expected echo is more than this × the mean bin's is one of the bins that
    /// carry it (`prominentEchoMargin`) — relative to the mean, so that a flat echo (no bin
    /// stands out) keeps the margin of 2 everywhere at any bin count.
    static let prominence: Float = 10
    /// Microphone power up to this × the noise floor in a bin is explained by background
    /// noise, which is not a talker: without it, noise under the echo makes echo frames look
    /// like near-end frames, which are then suppressed gently and let the echo through.
    static let noiseMargin: Float = 2
    /// How long a detection is held, in ms.
    static let hangoverMs: Float = 150
    /// Far-end activity after which the linear filter counts as settled, in ms.
    static let settledMs: Float = 3_500

    /// Whether near-end speech was detected in the last frame or within the hangover before it.
    private(set) var isActive = false

    private let binCount: Int
    private let hangoverFrames: Int
    private var hangover = 0
    private let settledFrames: Int
    private var farActiveFrames = 0

    /// A detector for spectra of `binCount` bins, one every `frameDurationMs`.
    init(binCount: Int, frameDurationMs: Float) {
        self.binCount = binCount
        hangoverFrames = max(1, Int((Self.hangoverMs / frameDurationMs).rounded()))
        settledFrames = max(1, Int((Self.settledMs / frameDurationMs).rounded()))
    }

    /// Forgets the hangover and the far-end activity.
    func reset() {
        hangover = 0
        isActive = false
        forgetEchoPath()
    }

    /// The linear filter was reset with the echo path: it settles again.
    func forgetEchoPath() { farActiveFrames = 0 }

    /// Decides this frame from the smoothed `microphonePower`, the echo power model's
    /// `predictedEcho`, the echo the linear filter subtracted (`linearFilterEcho`, smoothed)
    /// and the `noiseFloor`, per bin; `farEndActive` when the far end played anything.
    /// Returns `isActive`.
    @discardableResult
    func update(microphonePower: UnsafePointer<Float>, predictedEcho: UnsafePointer<Float>,
                linearFilterEcho: UnsafePointer<Float>, noiseFloor: UnsafePointer<Float>, farEndActive: Bool) -> Bool {
        var echoTotal: Float = 0
        for bin in 0..<binCount { echoTotal += max(predictedEcho[bin], linearFilterEcho[bin]) }
        let prominentEcho = Self.prominence * echoTotal / Float(binCount)
        var microphoneTotal: Float = 0
        var unexplained: Float = 0
        for bin in 0..<binCount {
            microphoneTotal += microphonePower[bin]
            let echo = max(predictedEcho[bin], linearFilterEcho[bin])
            let margin = echo > prominentEcho ? Self.prominentEchoMargin : Self.echoMargin
            let excess = microphonePower[bin] - margin * echo - Self.noiseMargin * noiseFloor[bin]
            if excess > 0 { unexplained += excess }
        }
        if farEndActive && farActiveFrames < settledFrames { farActiveFrames += 1 }
        let share = farActiveFrames < settledFrames ? Self.share : Self.settledShare
        if microphoneTotal > 0 && unexplained > share * microphoneTotal {
            hangover = hangoverFrames
        } else if hangover > 0 {
            hangover -= 1
        }
        isActive = hangover > 0
        return isActive
    }
}
