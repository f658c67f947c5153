// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import TestSupport
@testable import JitterBuffer

/// `QuietFrameDetector` alone: pauses against talk, a steady loud signal, and a floor that climbs.
@Suite struct QuietFrameDetectorTests {
    /// A 20 ms frame of seeded white noise at `dbfs` (RMS relative to full scale).
    static func noise(dbfs: Double, seed: UInt64 = 3) -> [Int16] {
        var generator = SeededGenerator(seed: seed)
        let amplitude = 32_768 * pow(10, dbfs / 20) * 3.0.squareRoot()  // uniform noise: RMS = a / √3
        return (0..<960).map { _ in Int16(clamping: Int(Double.random(in: -amplitude...amplitude, using: &generator))) }
    }

    /// A 20 ms frame of a 200 Hz tone at `dbfs`.
    static func tone(dbfs: Double) -> [Int16] {
        let amplitude = 32_768 * pow(10, dbfs / 20) * 2.0.squareRoot()
        return (0..<960).map { Int16(clamping: Int(amplitude * sin(2 * .pi * 200 * Double($0) / 48_000))) }
    }

    static func observe(_ detector: QuietFrameDetector, _ frame: [Int16]) -> Bool {
        frame.withUnsafeBufferPointer { detector.observe($0) }
    }

    @Test func digitalSilenceAndVeryLowLevelsAreAlwaysQuiet() {
        let detector = QuietFrameDetector(frameDurationMs: 20)
        #expect(Self.observe(detector, [Int16](repeating: 0, count: 960)))
        // Far above the floor that silence set, but under −60 dBFS.
        #expect(Self.observe(detector, Self.noise(dbfs: -62)))
        #expect(!Self.observe(detector, Self.noise(dbfs: -57)))
    }

    @Test func aPauseInTalkIsQuietAndTheTalkIsNot() {
        let detector = QuietFrameDetector(frameDurationMs: 20)
        for round in 0..<3 {
            for _ in 0..<50 { #expect(!Self.observe(detector, Self.tone(dbfs: -20)), "talk, round \(round)") }
            // A background at −50 dBFS: the floor drops to it at once, and it stays quiet.
            for index in 0..<20 {
                #expect(Self.observe(detector, Self.noise(dbfs: -50, seed: UInt64(index))), "pause, round \(round)")
            }
        }
    }

    @Test func aSteadyLoudSignalIsNeverQuiet() {
        let detector = QuietFrameDetector(frameDurationMs: 20)
        // Ten seconds of one level: the floor reaches it, but −30 dBFS is above the ceiling.
        let quiet = (0..<500).filter { _ in Self.observe(detector, Self.tone(dbfs: -30)) }
        #expect(quiet.isEmpty)
        #expect(abs(10 * log10(detector.floorMeanSquare / (32_768.0 * 32_768.0)) + 30) < 0.5)  // the floor did climb to it
    }

    @Test func theFloorClimbsToABackgroundThatRose() {
        let detector = QuietFrameDetector(frameDurationMs: 20)
        _ = Self.observe(detector, Self.noise(dbfs: -56))
        // 10 dB louder: not a pause at first; at 5 dB/s the floor is within 6 dB after 0.8 s.
        let louder = Self.noise(dbfs: -46)
        #expect(!Self.observe(detector, louder))
        let quietFrom = (1..<100).first { _ in Self.observe(detector, louder) }
        #expect(quietFrom.map { (36...44).contains($0) } == true, "quiet from frame \(String(describing: quietFrom))")
    }

    @Test func resetForgetsTheFloor() {
        let detector = QuietFrameDetector(frameDurationMs: 20)
        _ = Self.observe(detector, Self.noise(dbfs: -58))
        #expect(!Self.observe(detector, Self.noise(dbfs: -48)))
        detector.reset()
        #expect(Self.observe(detector, Self.noise(dbfs: -48)))
    }
}
