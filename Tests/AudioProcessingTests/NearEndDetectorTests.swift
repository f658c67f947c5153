// SPDX-License-Identifier: Apache-2.0
@testable import AudioProcessing
import Testing

/// The near-end detector on its own (10 ms frames: 150 ms hangover = 15 frames, settled after
/// 350 frames of far-end activity).
@Suite struct NearEndDetectorTests {
    static let binCount = 8

    static func detector() -> NearEndDetector { NearEndDetector(binCount: binCount, frameDurationMs: 10) }

    /// One frame with the microphone at `ratio` × the expected echo in every bin (no noise).
    @discardableResult
    static func frame(_ detector: NearEndDetector, ratio: Float, echo: Float = 1, linearFilterEcho: Float = 0,
                      noise: Float = 0, farEndActive: Bool = true) -> Bool {
        let bins = [Float](repeating: 0, count: binCount)
        return detector.update(microphonePower: bins.map { _ in ratio * echo }, predictedEcho: bins.map { _ in echo },
                               linearFilterEcho: bins.map { _ in linearFilterEcho }, noiseFloor: bins.map { _ in noise },
                               farEndActive: farEndActive)
    }

    /// A frame is near end when more than 10 % of the microphone's power lies above twice the
    /// expected echo: at 2.5 × the echo the excess is 20 % of it; at 2 × there is none, and at
    /// 2.2 × it is 9 %.
    @Test func flagsPowerAboveTwiceTheExpectedEcho() {
        #expect(Self.frame(Self.detector(), ratio: 2.5))
        #expect(!Self.frame(Self.detector(), ratio: 2))
        #expect(!Self.frame(Self.detector(), ratio: 2.2))
        #expect(Self.frame(Self.detector(), ratio: 2.3))
    }

    /// The expected echo is the larger of the model's prediction and the linear filter's echo:
    /// a microphone that beats the prediction but not the filter's echo is echo.
    @Test func expectedEchoIsTheLargerEstimate() {
        #expect(!Self.frame(Self.detector(), ratio: 3, echo: 1, linearFilterEcho: 2))
        #expect(Self.frame(Self.detector(), ratio: 3, echo: 1, linearFilterEcho: 1))
    }

    /// In a bin that carries the echo (over 10 × the mean bin's), the microphone may reach 4 ×
    /// the expected echo (a harmonic on a peak of the room's response) before it counts; the
    /// weak bins keep the margin of 2.
    @Test func carryingBinsGetAWiderMargin() {
        let count = 64
        var echo = [Float](repeating: 0.1, count: count)
        echo[0] = 100
        func frame(carrying: Float, weak: Float) -> Bool {
            var microphone = echo.map { $0 * weak }
            microphone[0] = carrying * echo[0]
            let zeros = [Float](repeating: 0, count: count)
            return NearEndDetector(binCount: count, frameDurationMs: 10)
                .update(microphonePower: microphone, predictedEcho: echo, linearFilterEcho: zeros, noiseFloor: zeros, farEndActive: true)
        }
        #expect(!frame(carrying: 3.5, weak: 1))
        #expect(frame(carrying: 5, weak: 1))
        #expect(frame(carrying: 1, weak: 40))
    }

    /// Power up to twice the noise floor is background, not a talker.
    @Test func ignoresPowerUpToTwiceTheNoiseFloor() {
        #expect(!Self.frame(Self.detector(), ratio: 3.8, echo: 1, noise: 0.9))
        #expect(Self.frame(Self.detector(), ratio: 3.8, echo: 1, noise: 0.5))
    }

    /// A detection is held for 150 ms (15 frames) of echo only, then released.
    @Test func holdsForTheHangover() {
        let detector = Self.detector()
        Self.frame(detector, ratio: 3)
        for held in 1..<15 { #expect(Self.frame(detector, ratio: 1), "echo frame \(held) after speech") }
        #expect(!Self.frame(detector, ratio: 1))
    }

    /// Once the far end has been active for 3.5 s (350 frames) the share drops to 5 %: a frame
    /// with a 7 % excess is echo before and near end after; `forgetEchoPath` starts over.
    @Test func shareDropsOnceTheLinearFilterHasSettled() {
        let detector = Self.detector()
        let sevenPercent: Float = 2 / 0.93
        #expect(!Self.frame(detector, ratio: sevenPercent))
        for _ in 0..<347 { Self.frame(detector, ratio: 1) }
        #expect(!Self.frame(detector, ratio: sevenPercent), "far-end frame 349: still settling")
        #expect(Self.frame(detector, ratio: sevenPercent), "far-end frame 350: settled")
        detector.forgetEchoPath()
        for _ in 0..<15 { Self.frame(detector, ratio: 1) }
        #expect(!Self.frame(detector, ratio: sevenPercent))
    }

    /// Frames without far end do not count toward settling.
    @Test func settlesOnlyOnFarEndActivity() {
        let detector = Self.detector()
        for _ in 0..<400 { Self.frame(detector, ratio: 1, farEndActive: false) }
        #expect(!Self.frame(detector, ratio: 2 / 0.93))
    }

    /// `reset` drops a held detection.
    @Test func resetDropsTheHangover() {
        let detector = Self.detector()
        Self.frame(detector, ratio: 3)
        detector.reset()
        #expect(!detector.isActive)
        #expect(!Self.frame(detector, ratio: 1))
    }
}
