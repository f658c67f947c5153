// SPDX-License-Identifier: Apache-2.0
import Foundation
import LatencyEvaluation
import Testing
import TestSupport

/// `voicecall latency`: the measured mouth-to-ear delay beside the floor of its configuration.
@Suite struct LatencyCommandTests {
    @Test func theFloorIsTheSumOfTheUnavoidableParts() {
        let floor = MouthToEarFloor(periodMs: 10, frameMs: 20, codecLookaheadMs: 6.5, networkMs: 0.25, jitterMarginMs: 1.5)
        #expect(floor.captureMs == 5, "half a capture period")
        #expect(floor.playbackMs == 10, "one playback period")
        #expect(floor.configurationMs == 41.5)
        #expect(floor.totalMs == 43.25)
        let short = MouthToEarFloor(periodMs: 5, frameMs: 10, codecLookaheadMs: 6.5)
        #expect(short.totalMs == 24)
        let unmeasured = MouthToEarFloor(periodMs: 10, frameMs: 20, codecLookaheadMs: 6.5, networkMs: .nan, jitterMarginMs: -3)
        #expect(unmeasured.totalMs == unmeasured.configurationMs, "a network not measured adds nothing")
    }

    /// The low-latency residual echo suppressor and its 5 ms hops are settings of voice
    /// processing, one at a time: asked for without it, or together, the command refuses at
    /// once, naming the option; so does a number of phases outside 1…16.
    @Test(arguments: [
        (["--no-processing", "--low-latency-echo"], "--low-latency-echo"),
        (["--no-processing", "--short-echo-hop"], "--short-echo-hop"),
        (["--low-latency-echo", "--short-echo-hop"], "--short-echo-hop"),
        (["--phases", "0"], "--phases"),
        (["--phases", "17"], "--phases"),
    ])
    func processingOptionsThatCannotGoTogetherAreUsageErrors(options: [String], named: String) throws {
        let run = try DemoCommandTests.run(["latency"] + options)
        #expect(run.exited && run.status != 0)
        #expect(run.errors.contains(named), "\(run.errors)")
        #expect(!run.output.contains("mouth-to-ear"), "nothing was measured")
    }

    /// A burst the jitter buffer changed inside — 20 ms repeated (concealment, expansion) or
    /// removed (acceleration) early, in the middle or late in it — is still found, within the
    /// change of its onset (the whole burst alone missed the one removed at 1 000); silence and
    /// noise are not taken for one.
    @Test(arguments: [(1_000, true), (1_440, true), (2_400, true), (1_000, false), (1_440, false)])
    func aBurstStretchedInsideIsStillFound(at cut: Int, inserted: Bool) {
        let burst = MouthToEarMeasurement.burst
        let period = 960, onset = 9_000
        let stretched = inserted ? Array(burst[..<cut] + burst[(cut - period)..<cut] + burst[cut...])
                                 : Array(burst[..<cut] + burst[(cut + period)...])
        let heard = [Int16](repeating: 0, count: onset) + stretched + [Int16](repeating: 0, count: 9_000)
        let found = MouthToEarMeasurement.burstOnset(in: heard, from: 8_000, span: 3_000)
        #expect(found.map { abs($0 - onset) <= period } == true, "found at \(String(describing: found)), onset \(onset)")
        var generator = SeededGenerator(seed: UInt64(cut))
        let noise = (0..<27_000).map { _ in Int16.random(in: -3_000...3_000, using: &generator) }
        #expect(MouthToEarMeasurement.burstOnset(in: noise, from: 8_000, span: 3_000) == nil)
        #expect(MouthToEarMeasurement.burstOnset(in: [Int16](repeating: 0, count: 27_000), from: 8_000, span: 3_000) == nil)
    }

    /// On the PulseAudio loopback (`--device pulse`: Bob plays into its null sink, whose monitor
    /// the measurement captures) every burst is found, and the sound server's buffering (Bob's
    /// playback `snd_pcm_delay`) is reported apart from the engine's share, the two adding up
    /// to the whole; the whole is above what the configuration alone takes (41.5 ms).
    @Test(.enabled(if: LoopbackDevice.enabled, "no ALSA device opens: make test starts the PulseAudio loopback"))
    func onTheSoundServersLoopbackItsShareIsReportedApart() throws {
        let run = try RealDeviceLock.withLock {
            try DemoCommandTests.run(["latency", "--device", PulseAudioLoopback.device, "--phases", "1", "--seconds", "5"])
        }
        #expect(run.exited && run.status == 0, "\(run.output)\n\(run.errors)")
        let measured = try #require(Self.milliseconds(after: "mouth-to-ear:", in: run.output), "\(run.output)")
        let server = try #require(Self.milliseconds(after: "sound server:", in: run.output), "\(run.output)")
        let engine = try #require(Self.milliseconds(after: "the engine's share:", in: run.output), "\(run.output)")
        #expect(server > 0 && engine > 0, "\(run.output)")
        #expect(abs(server + engine - measured) <= 0.11, "the two shares make the whole: \(run.output)")
        #expect(measured >= 41.5, "no call is faster than its configuration allows: \(run.output)")
    }

    /// The first number after `label` in `text`.
    static func milliseconds(after label: String, in text: String) -> Double? {
        guard let range = text.range(of: label) else { return nil }
        let rest = text[range.upperBound...].drop { $0 == " " }
        return Double(rest.prefix { $0.isNumber || $0 == "." })
    }

    /// A 10 ms call on 5 ms periods runs at two phases, finds every burst and is measured above
    /// the floor its configuration alone sets (2.5 + 10 + 6.5 + 5 ms): true on any machine,
    /// however loaded, since load only adds delay. The second call's devices start half a
    /// period later against the first's — exactly, however late a loaded machine woke the
    /// thread that started them (their clocks start on the phase asked for).
    @Test func tenMillisecondFramesOnFiveMillisecondPeriodsAreMeasuredAboveTheirFloor() throws {
        let run = try DemoCommandTests.run(["latency", "--period-ms", "5", "--ptime", "10", "--seconds", "4", "--phases", "2"])
        #expect(run.exited && run.status == 0, "\(run.output)\n\(run.errors)")
        let phases = try #require(run.output.split(separator: "\n").first { $0.hasPrefix("by phase") }, "\(run.output)")
        let offsets = phases.split(separator: ", ").compactMap { Self.milliseconds(after: " at", in: String($0)) }
        #expect(offsets.count == 2, "\(phases)")
        if offsets.count == 2 {
            // Started 2.5 ms later on a 5 ms period: the second phase is half a period on.
            let apart = (offsets[1] - offsets[0] + 5).truncatingRemainder(dividingBy: 5)
            #expect(abs(apart - 2.5) < 0.11, "\(phases)")
        }
        let measured = try #require(Self.milliseconds(after: "mouth-to-ear:", in: run.output), "\(run.output)")
        let floor = try #require(Self.milliseconds(after: "floor:", in: run.output), "\(run.output)")
        #expect(run.output.contains("5 ms periods, 10 ms frames"))
        #expect(floor >= 24, "the configuration's part of the floor: \(run.output)")
        #expect(measured >= 24, "no call is faster than its configuration allows: \(run.output)")
        #expect(run.output.contains("CPU:"))
    }
}
