// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// `EchoPathPresence`: present on the estimator's correlation, absent only on a second of
/// frames in which the far end played and the microphone stayed 30 dB below it.
@Suite struct EchoPathPresenceTests {
    /// One 10 ms frame at 16 kHz of a square wave at `amplitude` (0: silence).
    static func frame(_ amplitude: Int16) -> [Int16] {
        (0..<160).map { $0 % 20 < 10 ? amplitude : -amplitude }
    }

    /// Feeds `frames` frames and returns the frame index (from 1) after which the path went
    /// absent, or nil.
    static func absentAfter(_ presence: inout EchoPathPresence, frames: Int, confidence: Double,
                            far: [Int16], microphone: [Int16]) -> Int? {
        for index in 1...frames {
            far.withUnsafeBufferPointer { far in
                microphone.withUnsafeBufferPointer { presence.update(confidence: confidence, farEnd: far, microphone: $0) }
            }
            if !presence.isPresent { return index }
        }
        return nil
    }

    static func present() -> EchoPathPresence { EchoPathPresence(frameDurationMs: 10) }

    /// Present at first (the canceller starts as it always did); back on the correlation
    /// alone once absent; present again after `reset`.
    @Test func presentAtFirstAndAgainOnTheCorrelation() {
        var presence = EchoPathPresence(frameDurationMs: 10)
        #expect(presence.isPresent)
        let far = Self.frame(8_000), quiet = Self.frame(3)
        #expect(Self.absentAfter(&presence, frames: 100, confidence: 0.1, far: far, microphone: quiet) == 100)
        far.withUnsafeBufferPointer { far in quiet.withUnsafeBufferPointer { presence.update(confidence: 0.49, farEnd: far, microphone: $0) } }
        #expect(!presence.isPresent)
        far.withUnsafeBufferPointer { far in quiet.withUnsafeBufferPointer { presence.update(confidence: 0.5, farEnd: far, microphone: $0) } }
        #expect(presence.isPresent)
        _ = Self.absentAfter(&presence, frames: 100, confidence: 0.1, far: far, microphone: quiet)
        #expect(!presence.isPresent)
        presence.reset()
        #expect(presence.isPresent)
    }

    /// A headset: the far end plays at −12 dBFS, the microphone holds −80 dBFS: absent after
    /// exactly a second of it.
    @Test func aSecondOfTheFarEndUnheardIsAbsence() {
        var presence = Self.present()
        #expect(Self.absentAfter(&presence, frames: 200, confidence: 0.1, far: Self.frame(8_000), microphone: Self.frame(3)) == 100)
    }

    /// The demo's echo path: the microphone holds the far end 15 dB down, and the correlation
    /// is as low as without an echo (the near end talks over it): present throughout.
    @Test func aWeakEchoKeepsThePathPresent() {
        var presence = Self.present()
        #expect(Self.absentAfter(&presence, frames: 1_000, confidence: 0.1, far: Self.frame(8_000), microphone: Self.frame(1_420)) == nil)
    }

    /// Frames that say nothing about the path: the far end silent, or the correlation between
    /// the thresholds.
    @Test func framesWithoutEvidenceDoNotCount() {
        var silentFar = Self.present()
        #expect(Self.absentAfter(&silentFar, frames: 1_000, confidence: 0.1, far: Self.frame(0), microphone: Self.frame(0)) == nil)
        var ambiguous = Self.present()
        #expect(Self.absentAfter(&ambiguous, frames: 1_000, confidence: 0.3, far: Self.frame(8_000), microphone: Self.frame(3)) == nil)
    }

    /// The evidence counts from the last time the correlation reached onset.
    @Test func onsetRestartsTheCount() {
        var presence = Self.present()
        let far = Self.frame(8_000), quiet = Self.frame(3)
        #expect(Self.absentAfter(&presence, frames: 99, confidence: 0.1, far: far, microphone: quiet) == nil)
        far.withUnsafeBufferPointer { far in quiet.withUnsafeBufferPointer { presence.update(confidence: 0.6, farEnd: far, microphone: $0) } }
        #expect(Self.absentAfter(&presence, frames: 200, confidence: 0.1, far: far, microphone: quiet) == 100)
    }
}
