// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DSP

/// Whether the far end reaches the microphone at all. While it does not — a headset, a muted
/// loudspeaker — the canceller passes the microphone as it is: there is no echo to remove, and
/// whatever its filter and suppressor would do to the near end's speech is loss (measured at
/// 48 kHz with the near end talking over the far end and no echo path: speexdsp's filter
/// adapted to the far end anyway and subtracted it, −10 dB of far-end speech in the uplink;
/// the suppressor took 9 dB on average; PESQ-WB 3.27 against 3.88 for the microphone).
///
/// - **Present** at first (the canceller starts as it always did: a trial that started absent
///   left the demo's echo suppression at 17 dB instead of 33 by the end of the far end's turn)
///   and from the first frame the bulk-delay estimator's correlation
///   (`DelayEstimator.confidence`, a 1.5 s memory) reaches `onsetConfidence`: an echo alone
///   correlates at 0.8–1 within 50–100 ms of the far end's first words.
/// - **Absent** once `absenceMs` of frames have shown that no echo is there: the far end played
///   in the frame, near its peak of the last half second (`farEndPeakDecayDbPerMs`, about the
///   longest bulk delay followed), while the microphone stayed `absenceMarginDb` below that
///   peak and the correlation low.
///   The microphone's level is the evidence, not the correlation alone: with the near end
///   talking, a weak echo (the demo's −15 dB) correlates at 0.09–0.29, no better than no echo
///   (0.06–0.22); in the near end's pauses the echo alone is there to be heard. A room whose
///   echo or noise sits within `absenceMarginDb` of the far end never gives that evidence and
///   keeps the canceller on, as before this gate.
struct EchoPathPresence {
    /// Correlation from which the path is present at once (the evidence the residual
    /// suppressor needs to learn upward: `EchoCanceller.echoPathConfidence`).
    static let onsetConfidence = 0.5
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
    /// Mean square far-end sample from which the far end counts as playing (−50 dBFS RMS).
    static let farEndActivity = 100.0 * 100.0

    /// Whether the path is present. Present at first: the canceller starts as it always did,
    /// and only evidence takes it out.
    private(set) var isPresent = true
    /// Whether the far end played in the last frame, near its recent peak and above
    /// `farEndActivity`: speech, not the comfort noise or residue of the other side's uplink.
    private(set) var isFarEndPlaying = false
    private let absenceFrames: Int
    private let peakDecay: Double
    private let margin: Double
    private var evidenceFrames = 0
    private var farEndPeak = 0.0

    init(frameDurationMs: Int) {
        absenceFrames = max(1, Self.absenceMs / frameDurationMs)
        peakDecay = Self.pow10(-Self.farEndPeakDecayDbPerMs * Double(frameDurationMs) / 10)
        margin = Self.pow10(-Self.absenceMarginDb / 10)
    }

    /// Takes one frame: the estimator's `confidence` after it, the far end's frame as played
    /// and the microphone's.
    mutating func update(confidence: Double, farEnd: UnsafeBufferPointer<Int16>, microphone: UnsafeBufferPointer<Int16>) {
        let far = farEnd.meanSquare
        farEndPeak = max(far, farEndPeak * peakDecay)
        isFarEndPlaying = far >= Self.farEndActivity && far >= farEndPeak * Self.playingShare
        if confidence >= Self.onsetConfidence {
            isPresent = true
            evidenceFrames = 0
            return
        }
        // The far end is playing now, near its recent peak: an echo would be in the microphone.
        guard isPresent, confidence < Self.absenceConfidence, isFarEndPlaying,
              microphone.meanSquare < farEndPeak * margin else { return }
        evidenceFrames += 1
        if evidenceFrames >= absenceFrames {
            isPresent = false
            evidenceFrames = 0
        }
    }

    /// Forgets the evidence and the far end's level (back to present).
    mutating func reset() {
        isPresent = true
        isFarEndPlaying = false
        evidenceFrames = 0
        farEndPeak = 0
    }

    private static func pow10(_ exponent: Double) -> Double { pow(10, exponent) }
}
