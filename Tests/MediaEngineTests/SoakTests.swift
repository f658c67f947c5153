// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import NetworkSimulation
import Testing
import TestSupport

/// A shortened soak (`benchmarks soak` runs 4 hours): 25 simulated minutes of class E with
/// ±500 ppm of drift between the sides and two outages, long enough for the sequence numbers
/// (and SRTP's rollover counter) to wrap once. Heap growth is measured by the benchmark, which
/// runs alone; tests share the process.
@Suite struct SoakTests {
    @Test func aDriftingLossyCallWithOutagesRunsThroughASequenceWrap() async throws {
        try await offCooperativePool {
            let speech = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
            let soak = SoakRun(minutes: 25, profile: .classE, driftPpm: 500,
                               outages: [(startMinute: 6, seconds: 10), (startMinute: 15, seconds: 10)], seed: 5)
            var minutesSeen = 0
            let report = try soak.run(speech: speech) { minute, _ in minutesSeen = minute }
            #expect(minutesSeen == 25)
            #expect(report.sequenceWraps == 1)
            // Across the wrap every packet still authenticates: the rollover counter followed.
            #expect(report.authenticationFailures == 0)
            #expect(report.replays == 0)
            let maximum = Double(soak.configuration.jitterBuffer.maximumDelayMs)
            #expect(report.largestTargetDelayMs.aliceToBob <= maximum && report.largestTargetDelayMs.bobToAlice <= maximum)
            // Drift does not fill the buffer (−500 ppm: packets arrive faster than played): no
            // minute's mean buffer delay goes above the highest target the network's jitter asked
            // for (measured at seed 5: 409 and 386 ms against targets of 502 and 482).
            #expect(report.largestMinuteBufferDelayMs.aliceToBob <= report.largestTargetDelayMs.aliceToBob,
                    "\(report.largestMinuteBufferDelayMs), targets \(report.largestTargetDelayMs)")
            #expect(report.largestMinuteBufferDelayMs.bobToAlice <= report.largestTargetDelayMs.bobToAlice,
                    "\(report.largestMinuteBufferDelayMs), targets \(report.largestTargetDelayMs)")
            // Audio still arrives at the end: class E loses a few per cent, not most.
            #expect(report.lastMinuteSent > 2_900)
            #expect(Double(report.lastMinuteReceived) > 0.8 * Double(report.lastMinuteSent), "\(report.lastMinuteReceived) of \(report.lastMinuteSent)")
            let bob = try #require(report.bob)
            // The extended sequence numbers carried across the wrap: the loss count is the link's,
            // not 65,536 off: the RTP packets the link dropped, give or take the RTCP reports among
            // its drops and the packets it delivered past the end of the run (measured at seed 5:
            // 1,195 lost, 1,155 datagrams dropped).
            let dropped = report.linkDropped.aliceToBob
            #expect(dropped > 1_000, "class E and two outages drop packets")
            #expect(abs(bob.inbound.packetsLost - dropped) < 100, "\(bob.inbound.packetsLost) lost, the link dropped \(dropped)")
            #expect(bob.inbound.packetsReceived > report.frames * 3 / 4)
        }
    }
}
