// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Foundation
import Testing
import TestSupport

/// The stationary noise-floor tracker on its own (10 ms frames).
@Suite struct NoiseFloorTrackerTests {
    static let binCount = 9

    static func tracker() -> NoiseFloorTracker {
        NoiseFloorTracker(binCount: binCount, blockCount: 320, transformSize: 512, frameDurationMs: 10)
    }

    /// Feeds `frames` frames of power `level` in every bin.
    static func feed(_ tracker: NoiseFloorTracker, level: Float, frames: Int) {
        let spectrum = Spectrum.withPowers([Float](repeating: level, count: binCount))
        for _ in 0..<frames { tracker.update(spectrum) }
    }

    static func decibels(_ ratio: Float) -> Double { 10 * log10(Double(ratio)) }

    /// The first frame sets the floor: its power times the minimum's bias (1.7).
    @Test func firstFrameSetsTheFloor() {
        let tracker = Self.tracker()
        Self.feed(tracker, level: 1e-3, frames: 1)
        for bin in 0..<Self.binCount {
            #expect(abs(tracker.power[bin] - NoiseFloorTracker.bias * 1e-3) < 1e-9, "bin \(bin)")
        }
    }

    /// A step up is followed at the stated rate, 1 dB/s (`riseDbPerSecond`): 20 dB louder
    /// noise lifts the floor by 1 dB after 1 s and 5 dB after 5 s, never faster.
    @Test func followsAStepUpAtItsStatedRate() {
        let tracker = Self.tracker()
        Self.feed(tracker, level: 1e-4, frames: 1)
        let before = tracker.power[0]
        Self.feed(tracker, level: 1e-2, frames: 100)
        #expect(abs(Self.decibels(tracker.power[0] / before) - NoiseFloorTracker.riseDbPerSecond) < 0.01)
        Self.feed(tracker, level: 1e-2, frames: 400)
        #expect(abs(Self.decibels(tracker.power[0] / before) - 5 * NoiseFloorTracker.riseDbPerSecond) < 0.05)
    }

    /// With a 2 s window (noise suppression's tracker), a louder noise is followed once it has
    /// lasted the window: 20 dB louder, the floor has moved no more than the rise (1 dB/s)
    /// before 1.5 s and sits at the new level (× the bias) after 2.5 s.
    @Test func withAWindowFollowsALouderNoiseOnceItLasts() {
        let tracker = NoiseFloorTracker(binCount: Self.binCount, blockCount: 320, transformSize: 512,
                                        frameDurationMs: 10, windowSeconds: 2)
        Self.feed(tracker, level: 1e-4, frames: 300)
        let before = tracker.power[0]
        Self.feed(tracker, level: 1e-2, frames: 150)
        #expect(Self.decibels(tracker.power[0] / before) < 1.6)
        Self.feed(tracker, level: 1e-2, frames: 100)
        #expect(abs(Self.decibels(tracker.power[0] / (NoiseFloorTracker.bias * 1e-2))) < 0.1)
    }

    /// With a window, a talker who pauses within it keeps the floor where the tracker without
    /// a window has it: 1.5 s of speech-level power (30 dB above the noise), 0.5 s of noise (a
    /// breath), over and over for 14 s, and both floors agree to 0.1 dB and stay within 5 dB of
    /// the noise (the ~60 ms smoothing reaches the noise late in each breath).
    @Test func withAWindowPausesKeepTheFloorDown() {
        let windowed = NoiseFloorTracker(binCount: Self.binCount, blockCount: 320, transformSize: 512,
                                         frameDurationMs: 10, windowSeconds: 2)
        let plain = Self.tracker()
        for (level, frames) in [(Float(1e-4), 100)] + Array(repeating: [(Float(1e-1), 150), (1e-4, 50)], count: 7).flatMap({ $0 }) {
            Self.feed(windowed, level: level, frames: frames)
            Self.feed(plain, level: level, frames: frames)
            #expect(abs(Self.decibels(windowed.power[0] / plain.power[0])) < 0.1)
            #expect(Self.decibels(windowed.power[0] / (NoiseFloorTracker.bias * 1e-4)) < 5)
        }
    }

    /// A step down is followed at once, without a rate limit: the minimum moves a tenth of the
    /// way per frame toward the ~60 ms average, so a 20 dB drop is followed halfway (10 dB) in
    /// 0.3 s and to within 1 dB in 0.8 s — where a 20 dB rise takes 20 s.
    @Test func followsAStepDownAtOnce() {
        let tracker = Self.tracker()
        Self.feed(tracker, level: 1e-2, frames: 100)
        let settled = NoiseFloorTracker.bias * 1e-4
        Self.feed(tracker, level: 1e-4, frames: 30)
        #expect(Self.decibels(tracker.power[0] / settled) < 11)
        Self.feed(tracker, level: 1e-4, frames: 50)
        #expect(Self.decibels(tracker.power[0] / settled) < 1)
        #expect(Self.decibels(tracker.power[0] / settled) > -0.1, "the floor does not undershoot")
    }

    /// Digital silence: the floor stops at the 16-bit quantization noise (−101 dBFS, times the
    /// bias: about −99 dBFS), so the multiplicative rise can start from it.
    @Test func silenceStopsAtTheQuantizationFloor() {
        let tracker = NoiseFloorTracker(binCount: 257, blockCount: 320, transformSize: 512, frameDurationMs: 10)
        let silence = Spectrum(binCount: 257)
        for _ in 0..<10 { tracker.update(silence) }
        #expect(tracker.power[0] > 0)
        #expect(abs(tracker.levelDbFS - -98.8) < 0.5, "floor \(tracker.levelDbFS) dBFS")
    }

    /// Through the framing, noise at −45 dBFS is reported near its level by `levelDbFS`: the
    /// bias and the power scaling are right, on 10 ms hops and on the 5 ms hops of
    /// `EchoCanceller.Configuration.residualHopMs` 5. White within 1 dB (measured −45.7 and −45.3); pink reads
    /// up to 2.5 dB low on 10 ms hops (measured −47.1) and 3.5 on 5 ms hops (−48.0): its
    /// strongest bins are the lowest, which the minimum under-reads most, and 5 ms hops have
    /// half as many bins there — in the canceller, speexdsp's DC notch takes those bins out first.
    @Test(arguments: [false, true], [160, 80])
    func reportsTheLevelOfNoise(pink: Bool, hop: Int) {
        let framing = STFTFraming(frameCount: hop)
        let tracker = NoiseFloorTracker(binCount: framing.binCount, blockCount: framing.blockCount,
                                        transformSize: framing.transformSize, frameDurationMs: Float(hop) / 16)
        let spectrum = Spectrum(binCount: framing.binCount)
        let noise = SyntheticNoise.samples(count: 3 * 16_000, levelDb: -45, pink: pink, seed: 7)
        noise.withUnsafeBufferPointer { samples in
            for start in stride(from: 0, to: noise.count - hop + 1, by: hop) {
                framing.analyze(samples.baseAddress! + start, into: spectrum)
                tracker.update(spectrum)
            }
        }
        let error = tracker.levelDbFS - -45
        let pinkBound: Float = hop == 160 ? -2.5 : -3.5
        #expect(pink ? error > pinkBound && error < 0 : abs(error) < 1, "\(pink ? "pink" : "white"), hop \(hop): \(tracker.levelDbFS) dBFS")
    }

    /// `reset` forgets the floor: the next frame sets it again.
    @Test func resetForgetsTheFloor() {
        let tracker = Self.tracker()
        Self.feed(tracker, level: 1, frames: 50)
        tracker.reset()
        #expect(values(tracker.power, Self.binCount).allSatisfy { $0 == 0 })
        Self.feed(tracker, level: 1e-6, frames: 1)
        #expect(abs(tracker.power[0] - NoiseFloorTracker.bias * 1e-6) < 1e-12)
    }
}
