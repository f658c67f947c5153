// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// `EchoPathPresence`: undecided (the microphone passes) until the correlation — once the far
/// end has played long enough for it to mean something — or the linear filter's shape shows a
/// path; absent on a second of frames in which the far end played and either the microphone
/// stayed 30 dB below it or the settled filter's response was spread.
@Suite struct EchoPathPresenceTests {
    /// One 10 ms frame at 16 kHz of a square wave at `amplitude` (0: silence).
    static func frame(_ amplitude: Int16) -> [Int16] {
        (0..<160).map { $0 % 20 < 10 ? amplitude : -amplitude }
    }

    static let loud = frame(8_000), quiet = frame(3), weakEcho = frame(1_420), silence = frame(0)
    static let noShape = FilterShapeReading.unsettled
    static let converged = FilterShapeReading(showsPath: true, showsNoPath: false)
    static let spread = FilterShapeReading(showsPath: false, showsNoPath: true)

    /// Feeds `frames` frames and returns the frame index (from 1) after which `until` held, or nil.
    static func feed(_ presence: inout EchoPathPresence, frames: Int, confidence: Double, shape: FilterShapeReading = noShape,
                     far: [Int16] = loud, microphone: [Int16] = quiet, until: (EchoPathPresence) -> Bool) -> Int? {
        for index in 1...frames {
            far.withUnsafeBufferPointer { far in
                microphone.withUnsafeBufferPointer { presence.update(confidence: confidence, shape: shape, farEnd: far, microphone: $0) }
            }
            if until(presence) { return index }
        }
        return nil
    }

    static func absent(_ presence: EchoPathPresence) -> Bool { presence.isDecided && !presence.isPresent }
    static func present(_ presence: EchoPathPresence) -> Bool { presence.isPresent }

    /// Undecided at first, and a correlation counts only once the far end has played: 0.9 from
    /// 400 ms of it (an echo alone), 0.5 from a second (two talkers' chance peaks in the first
    /// second reach 0.5–0.94).
    @Test func theCorrelationCountsOnceTheFarEndHasPlayed() {
        var early = EchoPathPresence(frameDurationMs: 10)
        #expect(!early.isPresent && !early.isDecided)
        #expect(Self.feed(&early, frames: 200, confidence: 0.9, microphone: Self.loud, until: Self.present) == 40)
        #expect(early.isDecided && early.isCorrelated)
        var late = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&late, frames: 200, confidence: 0.6, microphone: Self.loud, until: Self.present) == 100)
        var silentFar = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&silentFar, frames: 300, confidence: 0.9, far: Self.silence, until: Self.present) == nil,
                "the far end silent: its correlation is no evidence")
    }

    /// An echo alone (the microphone 15 dB under the far end in every frame) with a correlation
    /// of 0.95 counts from 150 ms of far-end playing; the same correlation with the microphone
    /// level with the far end (a near-end talker: two voices' chance peaks) waits for 400 ms,
    /// and so does an echo alone once a frame was talked over.
    @Test func anEchoAloneCountsSooner() {
        var echoAlone = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&echoAlone, frames: 200, confidence: 0.95, microphone: Self.weakEcho, until: Self.present) == 15)
        var talkedOver = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&talkedOver, frames: 200, confidence: 0.95, microphone: Self.loud, until: Self.present) == 40)
        var onceTalkedOver = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&onceTalkedOver, frames: 1, confidence: 0.95, microphone: Self.loud, until: Self.present) == nil)
        #expect(Self.feed(&onceTalkedOver, frames: 200, confidence: 0.95, microphone: Self.weakEcho, until: Self.present) == 39)
        var lowCorrelation = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&lowCorrelation, frames: 200, confidence: 0.85, microphone: Self.weakEcho, until: Self.present) == 40)
        // The echo outlasts the far end's louder words: the microphone is measured against the
        // far end's recent peak, not its frame (here every other frame is 8.5 dB softer, and
        // the echo of the louder one only 6.5 dB under it).
        var trailingEcho = EchoPathPresence(frameDurationMs: 10)
        var decidedAt: Int?
        for index in 1...100 where decidedAt == nil {
            let far = index % 2 == 1 ? Self.loud : Self.frame(3_000)
            if Self.feed(&trailingEcho, frames: 1, confidence: 0.95, far: far, microphone: Self.weakEcho, until: Self.present) != nil {
                decidedAt = index
            }
        }
        #expect(decidedAt == 15)
    }

    /// The filter's converged shape is evidence at once, the correlation low (an echo talked
    /// over), and keeps the path present.
    @Test func aConvergedFilterShowsThePath() {
        var presence = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&presence, frames: 5, confidence: 0.1, shape: Self.converged, microphone: Self.loud, until: Self.present) == 1)
        #expect(!presence.isCorrelated)
        #expect(Self.feed(&presence, frames: 1_000, confidence: 0.1, shape: Self.converged, until: Self.absent) == nil)
    }

    /// A headset: the far end plays at −12 dBFS, the microphone holds −80 dBFS: absent after
    /// exactly a second of it, from undecided or from present.
    @Test func aSecondOfTheFarEndUnheardIsAbsence() {
        var undecided = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&undecided, frames: 200, confidence: 0.1, until: Self.absent) == 100)
        var present = EchoPathPresence(frameDurationMs: 10)
        _ = Self.feed(&present, frames: 1, confidence: 0.1, shape: Self.converged, until: Self.present)
        #expect(Self.feed(&present, frames: 200, confidence: 0.1, until: Self.absent) == 100)
    }

    /// The near end talking over no echo: the microphone is loud, but the settled filter's
    /// spread response is evidence: absent after a second of it.
    @Test func aSpreadFilterUnderDoubleTalkIsAbsence() {
        var presence = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&presence, frames: 200, confidence: 0.1, shape: Self.spread, microphone: Self.loud, until: Self.absent) == 100)
    }

    /// The demo's echo path talked over: the microphone holds the far end 15 dB down, the
    /// correlation as low as without an echo, the filter not yet settled: nothing decides.
    @Test func aWeakEchoWithoutEvidenceStaysUndecided() {
        var presence = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&presence, frames: 1_000, confidence: 0.1, microphone: Self.weakEcho, until: { $0.isDecided }) == nil)
    }

    /// Frames that say nothing about the path: the far end silent, or the correlation between
    /// the thresholds.
    @Test func framesWithoutEvidenceDoNotCount() {
        var silentFar = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&silentFar, frames: 1_000, confidence: 0.1, far: Self.silence, microphone: Self.silence, until: { $0.isDecided }) == nil)
        var ambiguous = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&ambiguous, frames: 1_000, confidence: 0.3, shape: Self.spread, until: { $0.isDecided }) == nil)
    }

    /// The evidence counts from the last onset; back to undecided after `reset`.
    @Test func onsetRestartsTheCountAndResetForgets() {
        var presence = EchoPathPresence(frameDurationMs: 10)
        #expect(Self.feed(&presence, frames: 99, confidence: 0.1, until: Self.absent) == nil)
        _ = Self.feed(&presence, frames: 1, confidence: 0.1, shape: Self.converged, until: Self.present)
        #expect(Self.feed(&presence, frames: 200, confidence: 0.1, until: Self.absent) == 100)
        #expect(Self.feed(&presence, frames: 1, confidence: 0.1, shape: Self.converged, until: Self.present) == 1)
        presence.reset()
        #expect(!presence.isPresent && !presence.isDecided && !presence.isCorrelated)
    }
}
