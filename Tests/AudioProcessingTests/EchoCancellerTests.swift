import AudioProcessing
import EchoEvaluation
import TestSupport
import XCTest

/// Echo cancellation with our delay alignment on synthetic rooms (seeded), 16 kHz, 10 ms frames.
/// ERLE is measured after 4 s (the first seconds are convergence) over frames carrying echo.
final class EchoCancellerTests: XCTestCase {
    static let rate = EchoScenario.sampleRate

    /// Far end only, bulk delays 20–400 ms, echo gains −3 to −12 dB, RT60 200–300 ms with the
    /// default 200 ms tail: the residual is at least 30 dB below the microphone (measured
    /// 36–44 dB here, at least 30.5 dB over seeds 101/202/303; the linear filter alone gives
    /// 20–26 dB, speexdsp's suppressor 28–38), and the estimator finds the bulk delay (its
    /// envelope peak lies within 15 ms after it).
    ///
    /// (Since the suppressor's near-end detector, echo-only frames are pushed to its −40 dB
    /// floor: 58–63 dB is measured on all these rooms.)
    func testFarEndOnlyResidualIsAtLeast30dBBelowMicrophoneAtEveryDelay() throws {
        for (delay, gain, rt60) in [(20, -3.0, 200), (120, -6.0, 300), (250, -9.0, 250), (400, -12.0, 300)] {
            let path = EchoPath(sampleRate: Self.rate, rt60Ms: rt60, bulkDelayMs: delay, gainDb: gain, seed: UInt64(delay))
            let scenario = EchoScenario(path: path)
            let microphone = scenario.microphone
            let canceller = try EchoCanceller(configuration: .init(sampleRate: Self.rate))
            let output = canceller.processRecording(microphone: microphone, farEnd: scenario.far)
            let erle = EchoScenario.erle(microphone, output)
            let estimateMs = Double(canceller.delayEstimator.delaySamples ?? -10_000) / 16
            print("far-end only: delay \(delay) ms, estimate \(estimateMs) ms, ERLE \(erle) dB")
            XCTAssertGreaterThanOrEqual(erle, 30, "delay \(delay) ms")
            XCTAssertEqual(estimateMs, Double(delay) + 5, accuracy: 10, "delay \(delay) ms")
        }
    }

    /// A long room (RT60 400 ms) needs a longer tail: with 300 ms the bound holds at 250 ms delay.
    func testLongRoomWithLongerTail() throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 400, bulkDelayMs: 250, gainDb: -6, seed: 7)
        let scenario = EchoScenario(path: path)
        let microphone = scenario.microphone
        let canceller = try EchoCanceller(configuration: .init(sampleRate: Self.rate, tailMs: 300))
        let erle = EchoScenario.erle(microphone, canceller.processRecording(microphone: microphone, farEnd: scenario.far))
        print("long room: ERLE \(erle) dB")
        XCTAssertGreaterThanOrEqual(erle, 25)
    }

    /// speexdsp alone (with its residual suppressor) and the unaligned reference cannot reach an
    /// echo 250 ms late with a 200 ms tail; our canceller with alignment does. The margin is what alignment buys.
    func testAlignmentIsWhatMakesLateEchoCancellable() throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 250, gainDb: -6, seed: 11)
        let scenario = EchoScenario(path: path)
        let microphone = scenario.microphone
        let alone = try EchoCanceller(configuration: .init(sampleRate: Self.rate, residualSuppression: .speexdsp, delayEstimation: false))
        let ours = try EchoCanceller(configuration: .init(sampleRate: Self.rate))
        let aloneERLE = EchoScenario.erle(microphone, alone.processRecording(microphone: microphone, farEnd: scenario.far))
        let oursERLE = EchoScenario.erle(microphone, ours.processRecording(microphone: microphone, farEnd: scenario.far))
        print("speex alone \(aloneERLE) dB, ours \(oursERLE) dB")
        XCTAssertLessThan(aloneERLE, 10)
        XCTAssertGreaterThan(oursERLE, aloneERLE + 15)
    }

    /// A loudspeaker that soft-clips (tanh, drive 3: peaks compressed by ~10 dB) is not a
    /// linear path; the linear filter leaves ~13 dB, speexdsp's suppressor gets to ~21 dB, and
    /// ours to 25 dB at least (measured 49.3 dB since the near-end detector; 26.7 dB before).
    func testSoftClippingLoudspeaker() throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, softClipDrive: 3, seed: 5)
        let scenario = EchoScenario(path: path)
        let microphone = scenario.microphone
        let canceller = try EchoCanceller(configuration: .init(sampleRate: Self.rate))
        let erle = EchoScenario.erle(microphone, canceller.processRecording(microphone: microphone, farEnd: scenario.far))
        print("soft clipping: ERLE \(erle) dB")
        XCTAssertGreaterThanOrEqual(erle, 25)
    }

    /// Double talk: far end throughout, the near-end talker from 4 s on, in four rooms (seeds
    /// 3, 101, 202, 303). The near end must survive: in the double-talk segment the output
    /// correlates with the clean near-end speech (at its best lag: the residual suppressor adds
    /// one frame of latency) at least 0.9, and better than the unprocessed microphone does
    /// (measured 0.946–0.953 with our suppressor). Bound: the microphone itself, the near end
    /// plus the echo at −6 dB, correlates ≈ 0.82; an output that removed the echo and kept the
    /// near end must beat it, while a filter that diverged in double talk or a suppressor that
    /// ducked the near end with the echo would fall well below (≈ 0.14 was measured while the
    /// one-frame latency was not yet allowed for — what a lost near end looks like; a
    /// near-end detector that missed too many frames gave 0.83–0.88).
    ///
    /// The same with the near end 10 dB quieter (a soft or distant talker; the microphone
    /// correlates 0.41 there): at least 0.87 — measured 0.884–0.899 on these seeds (0.778–0.838
    /// before the suppressor's settled near-end settings; speexdsp's suppressor gives ≈ 0.94).
    func testDoubleTalkPreservesNearEnd() throws {
        for (scale, bound) in [(Float(1), 0.9), (Float(0.316), 0.87)] {
            for seed in [UInt64(3), 101, 202, 303] {
                let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, seed: seed)
                let start = 4 * Self.rate
                let near = [Int16](repeating: 0, count: start) + EchoScenario.nearEnd.map { Int16(Float($0) * scale) }
                let scenario = EchoScenario(path: path, near: near)
                let microphone = scenario.microphone
                let canceller = try EchoCanceller(configuration: .init(sampleRate: Self.rate))
                let output = canceller.processRecording(microphone: microphone, farEnd: scenario.far)
                let clean = Array(scenario.near[start...])
                let processed = Array(output[start...])
                let raw = Array(microphone[start...])
                let ours = SignalComparison.bestCorrelation(reference: clean, signal: processed, maxLag: 200).correlation
                let unprocessed = SignalComparison.bestCorrelation(reference: clean, signal: raw, maxLag: 200).correlation
                let label = "seed \(seed), near end × \(scale)"
                print("double talk, \(label): correlation ours \(ours), unprocessed microphone \(unprocessed)")
                XCTAssertGreaterThanOrEqual(ours, bound, label)
                XCTAssertGreaterThan(ours, unprocessed, label)
            }
        }
    }

    /// The bulk delay jumps from 120 to 320 ms halfway (route change): the estimator follows
    /// and the canceller re-converges to ≥ 20 dB in the last 4 s.
    func testFollowsAbruptDelayChange() throws {
        let far = EchoScenario.farEnd + EchoScenario.farEnd
        let half = EchoScenario.farEnd.count
        let before = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, seed: 21).echo(of: far)
        let after = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 320, gainDb: -6, seed: 21).echo(of: far)
        let microphone = Array(before[..<half] + after[half...])
        let canceller = try EchoCanceller(configuration: .init(sampleRate: Self.rate))
        let output = canceller.processRecording(microphone: microphone, farEnd: far)
        let tail = (far.count - 4 * Self.rate)..<far.count
        let erle = EchoMeasurement.erle(microphone: microphone, residual: output, sampleRate: Self.rate, range: tail)
        let estimateMs = Double(canceller.delayEstimator.delaySamples ?? 0) / 16
        print("delay change: estimate \(estimateMs) ms, ERLE after \(erle) dB, alignment changes \(canceller.alignmentChanges)")
        XCTAssertEqual(estimateMs, 325, accuracy: 10)
        XCTAssertGreaterThanOrEqual(erle, 20)
    }

    /// 20 ms frames work as 10 ms ones do (250 ms delay, default tail).
    func testTwentyMillisecondFrames() throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 250, gainDb: -6, seed: 13)
        let scenario = EchoScenario(path: path)
        let microphone = scenario.microphone
        let canceller = try EchoCanceller(configuration: .init(sampleRate: Self.rate, frameDurationMs: 20))
        XCTAssertEqual(canceller.frameCount, 320)
        let erle = EchoScenario.erle(microphone, canceller.processRecording(microphone: microphone, farEnd: scenario.far))
        print("20 ms frames: ERLE \(erle) dB")
        XCTAssertGreaterThanOrEqual(erle, 25)
    }

    /// A device-reported delay aligns from the first frame.
    func testKnownDelaySeedsAlignment() throws {
        let canceller = try EchoCanceller(configuration: .init(sampleRate: Self.rate, knownDelayMs: 250))
        XCTAssertEqual(canceller.alignmentDelayMs, 230)
        canceller.setKnownDelay(ms: 100)
        XCTAssertEqual(canceller.alignmentDelayMs, 80)
    }

    /// Frames other than 10 or 20 ms are rejected with a typed error.
    func testRejectsUnsupportedFrameDuration() {
        XCTAssertThrowsError(try EchoCanceller(configuration: .init(sampleRate: 16_000, frameDurationMs: 15))) { error in
            XCTAssertEqual(error as? SpeexDSPError, .unsupportedFrameSize(frameCount: 240, sampleRate: 16_000))
        }
    }

    /// Out-of-range settings are rejected, saying which.
    func testRejectsInvalidConfiguration() {
        XCTAssertThrowsError(try EchoCanceller(configuration: .init(tailMs: 0))) { error in
            XCTAssertEqual(error as? SpeexDSPError, .invalidConfiguration("tailMs 0 not in 1…2000"))
        }
        XCTAssertThrowsError(try EchoCanceller(configuration: .init(maximumDelayMs: -1)))
    }

    /// Steady state on the real-time path: no heap allocation per frame.
    func testProcessAllocatesNothing() throws {
        let canceller = try EchoCanceller(configuration: .init(sampleRate: 48_000))
        var generator = SeededGenerator(seed: 1)
        let far = (0..<480).map { _ in Int16.random(in: -8_000...8_000, using: &generator) }
        let mic = far.map { $0 / 4 }
        var out = [Int16](repeating: 0, count: 480)
        let allocations = far.withUnsafeBufferPointer { farBuffer in
            mic.withUnsafeBufferPointer { micBuffer in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    for _ in 0..<20 { canceller.process(microphone: micBuffer, farEnd: farBuffer, output: outBuffer) }
                    return AllocationCounter.measure {
                        for _ in 0..<100 { canceller.process(microphone: micBuffer, farEnd: farBuffer, output: outBuffer) }
                    }
                }
            }
        }
        XCTAssertEqual(allocations.allocations, 0)
    }
}
