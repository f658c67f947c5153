// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DSP

/// The linear filter's shape as `EchoPathPresence` reads it.
struct FilterShapeReading {
    /// `EchoFilterShape.showsPath`.
    var showsPath: Bool
    /// `EchoFilterShape.showsNoPath`.
    var showsNoPath: Bool
    /// A filter that has learnt nothing yet.
    static let unsettled = FilterShapeReading(showsPath: false, showsNoPath: false)
}

/// Whether the far end reaches the microphone at all. While it does not — a headset, a muted
/// loudspeaker — the canceller passes the microphone as it is: there is no echo to remove, and
/// whatever its filter and suppressor would do to the near end's speech is loss (measured at
/// 48 kHz with the near end talking over the far end and no echo path: speexdsp's filter
/// adapted to the far end anyway and subtracted it, −10 dB of far-end speech in the uplink;
/// the suppressor took 9 dB on average; PESQ-WB 3.27 against 3.88 for the microphone).
///
/// - **Undecided** at first, treated as absent (the microphone passes) while a stage after the
///   canceller should not adapt to what the far end's playing puts in the microphone
///   (`isDecided`, the AGC's hold). A call that starts with both ends talking and no echo —
///   a headset, a WebRTC peer answering at once — is never touched (the first pass of that
///   double talk scored 1.85 when the path started present, 3.85 undecided; the microphone
///   alone 3.86).
/// - **Present** once the far end is heard: the bulk-delay estimator's correlation
///   (`DelayEstimator.confidence`, a 1.5 s memory) reaches `onsetConfidence` after `warmUpMs`
///   of far-end playing, `earlyConfidence` after `earlyMs` (an echo alone), or
///   `echoAloneConfidence` after `echoAloneMs` while the microphone has stayed well under the
///   far end's recent peak since it first played (an echo alone, before any near-end talker);
///   or the linear
///   filter, which adapts whether its output is used or not, has converged to the
///   concentrated response of a real path (`EchoFilterShape.showsPath`: within half a second
///   of an echo alone, within 2–3 s of an echo talked over — the correlation alone never
///   shows a weak echo under the near end's speech).
/// - **Absent** once `absenceMs` of frames have shown that no echo is there: the far end played
///   in the frame, near its peak of the last half second (`farEndPeakDecayDbPerMs`, about the
///   longest bulk delay followed), the correlation low, and either the microphone stayed
///   `absenceMarginDb` below that peak (the near end's pauses: an echo alone would be heard)
///   or the settled filter's response is spread (`EchoFilterShape.showsNoPath`: the near end
///   talking over no echo). A room whose echo or noise sits within `absenceMarginDb` of the
///   far end and whose filter converges never gives that evidence and keeps the canceller on.
struct EchoPathPresence {
    /// Correlation from which the path is present once the far end has played `warmUpMs` (the
    /// evidence the residual suppressor needs to learn upward: `isCorrelated`).
    static let onsetConfidence = 0.5
    /// Far-end playing time before the correlation counts, in milliseconds: two unrelated
    /// voices give chance peaks of 0.5–0.94 among the estimator's 250 lags in its first second
    /// (0.9 at its first evaluation, both fixtures, both ways).
    static let warmUpMs = 1_000
    /// Before `warmUpMs`, from this much far-end playing time (milliseconds)…
    static let earlyMs = 400
    /// …a correlation this high counts: an echo alone reaches 0.8–1 within 100 ms, two
    /// talkers' chance peaks fall to 0.51–0.58 by 300 ms.
    static let earlyConfidence = 0.7
    /// From this much far-end playing time (milliseconds), while the microphone has stayed
    /// `echoShare` under the far end's recent peak in every frame since it first played (an
    /// echo alone: no near-end talker over it yet)…
    static let echoAloneMs = 150
    /// …a correlation this high counts. The call's first words come back to their talker from
    /// an undecided far side for as long as it takes to decide (`earlyMs` of playing and more:
    /// 0.6–1 s in the demo, at −41 dBFS); an echo alone correlates at 0.97–1 from its first
    /// evaluations, while two talkers' chance peaks (0.5–0.94) need a microphone level with
    /// the far end's, which this rule does not take. `voicecall demo --fast`, 40 seeds: the
    /// caller's first second comes back to her at −48 dBFS (median) instead of −41.
    static let echoAloneConfidence = 0.9
    /// Correlation below which a frame may count toward absence.
    static let absenceConfidence = 0.25
    /// How far below the far end's recent peak the microphone must be for a frame to count
    /// toward absence, in dB: a headset's acoustic coupling is 40 dB or more down.
    static let absenceMarginDb = 30.0
    /// Frames of evidence before the path is absent, in milliseconds.
    static let absenceMs = 1_000
    /// How fast the far end's remembered peak falls, in dB per ms (30 dB in 500 ms).
    static let farEndPeakDecayDbPerMs = 0.06
    /// Share of its recent peak the far end's frame must reach to count as playing (−10 dB).
    static let playingShare = 0.1
    /// Energy share of the far end's frame under which the microphone's is below it (−10 dB).
    static let echoShare = 0.1
    /// Energy share of the far end's frame under which the microphone's may be learnt as its
    /// echo while the path is undecided (−3 dB).
    static let learningShare = 0.5
    /// Mean square far-end sample from which the far end counts as playing (−50 dBFS RMS).
    static let farEndActivity = 100.0 * 100.0

    /// Whether the path is present: false until evidence shows it (`isDecided`).
    private(set) var isPresent = false
    /// Whether evidence has shown the path present or absent since the last reset.
    private(set) var isDecided = false
    /// Whether the last frame's correlation showed the far end in the microphone
    /// (`onsetConfidence` after `warmUpMs` of far-end playing, `earlyConfidence` after
    /// `earlyMs`): the evidence the residual suppressor needs to learn its echo model upward.
    private(set) var isCorrelated = false
    /// Whether the far end played in the last frame, near its recent peak and above
    /// `farEndActivity`: speech, not the comfort noise or residue of the other side's uplink.
    private(set) var isFarEndPlaying = false
    /// Whether the microphone's last frame was `echoShare` or more below the far end's: what an
    /// echo alone looks like (a loudspeaker's path to a laptop's microphone loses 10–20 dB; the
    /// demo's 15), while a near-end talker over the far end is level with it in most frames.
    private(set) var isMicrophoneBelowFarEnd = false
    /// Whether the microphone's last frame was `learningShare` or more below the far end's:
    /// where an echo may be learnt while the path is undecided — an echo alone, even a room's
    /// at −3 dB, while a near-end talker over the far end is not learnt as its echo.
    private(set) var isMicrophoneUnderFarEnd = false
    private let absenceFrames: Int
    private let peakDecay: Double
    private let margin: Double
    private var evidenceFrames = 0
    private var farEndPeak = 0.0
    private let warmUpFrames: Int
    private let earlyFrames: Int
    private let echoAloneFrames: Int
    private var playingFrames = 0
    /// Whether, since the far end first played, a microphone frame came within `echoShare` of
    /// the far end's recent peak.
    private var farEndTalkedOver = false

    init(frameDurationMs: Int) {
        absenceFrames = max(1, Self.absenceMs / frameDurationMs)
        peakDecay = Self.pow10(-Self.farEndPeakDecayDbPerMs * Double(frameDurationMs) / 10)
        margin = Self.pow10(-Self.absenceMarginDb / 10)
        warmUpFrames = max(1, Self.warmUpMs / frameDurationMs)
        earlyFrames = max(1, Self.earlyMs / frameDurationMs)
        echoAloneFrames = max(1, Self.echoAloneMs / frameDurationMs)
    }

    /// Takes one frame: the estimator's `confidence` after it, the linear filter's `shape` as of
    /// the last frame (`EchoFilterShape` is read after the filter runs), the far end's frame as
    /// played and the microphone's.
    mutating func update(confidence: Double, shape: FilterShapeReading, farEnd: UnsafeBufferPointer<Int16>,
                         microphone: UnsafeBufferPointer<Int16>) {
        let far = farEnd.meanSquare
        farEndPeak = max(far, farEndPeak * peakDecay)
        isFarEndPlaying = far >= Self.farEndActivity && far >= farEndPeak * Self.playingShare
        let microphoneLevel = microphone.meanSquare
        isMicrophoneBelowFarEnd = microphoneLevel < far * Self.echoShare
        isMicrophoneUnderFarEnd = microphoneLevel < far * Self.learningShare
        if isFarEndPlaying, playingFrames < warmUpFrames { playingFrames += 1 }
        // Against the far end's recent peak, not its frame: the echo trails the far end by the
        // path's delay and outlasts each of its words.
        if farEndPeak >= Self.farEndActivity && microphoneLevel >= farEndPeak * Self.echoShare { farEndTalkedOver = true }
        isCorrelated = playingFrames >= warmUpFrames ? confidence >= Self.onsetConfidence
            : (playingFrames >= earlyFrames && confidence >= Self.earlyConfidence)
                || (!farEndTalkedOver && playingFrames >= echoAloneFrames && confidence >= Self.echoAloneConfidence)
        if isCorrelated || shape.showsPath {
            isPresent = true
            isDecided = true
            evidenceFrames = 0
            return
        }
        // The far end is playing now, near its recent peak: an echo would be in the microphone
        // in the near end's pauses, and the filter would have converged to its shape.
        guard isPresent || !isDecided, confidence < Self.absenceConfidence, isFarEndPlaying else { return }
        let unheard = microphone.meanSquare < farEndPeak * margin
        guard unheard || shape.showsNoPath else { return }
        evidenceFrames += 1
        if evidenceFrames >= absenceFrames {
            isPresent = false
            isDecided = true
            evidenceFrames = 0
        }
    }

    /// Forgets the evidence and the far end's level (back to undecided).
    mutating func reset() {
        isPresent = false
        isFarEndPlaying = false
        evidenceFrames = 0
        farEndPeak = 0
        playingFrames = 0
        farEndTalkedOver = false
        isCorrelated = false
        isDecided = false
    }

    private static func pow10(_ exponent: Double) -> Double { pow(10, exponent) }
}
