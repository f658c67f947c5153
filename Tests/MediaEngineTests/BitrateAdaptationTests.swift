// SPDX-License-Identifier: Apache-2.0
@testable import CallCore
@testable import MediaEngine
import MediaEngineTesting
import NetworkSimulation
import RTP
import Testing
import TestSupport

/// The closed loop from the far end's reports of congestion to our bitrate: the configured
/// bitrate on a clean network and under loss that is not congestion, lower while loss comes
/// with a growing queue, back after it — without flapping.
@Suite struct BitrateAdaptationTests {
    /// One report: fraction lost, jitter and round-trip time in ms.
    typealias Report = (loss: Double, jitterMs: Double, roundTripMs: Double?)

    /// The target after each of `reports`.
    func targets(_ reports: [Report], maximum: Int = 24_000, minimum: Int = 18_000) -> [Int] {
        var loop = BitrateAdaptation(maximumBitrate: maximum, minimumBitrate: minimum)
        return reports.map { report in
            let before = loop.targetBitrate
            let moved = loop.report(fractionLost: report.loss, jitterMs: report.jitterMs, roundTripTimeMs: report.roundTripMs)
            #expect(moved == (loop.targetBitrate != before))
            return loop.targetBitrate
        }
    }

    /// Runs of the same direction in `targets`: how often the bitrate turned round.
    func directionChanges(_ targets: [Int]) -> Int {
        let moves = zip(targets, targets.dropFirst()).compactMap { $0 == $1 ? nil : $1 > $0 }
        return zip(moves, moves.dropFirst()).filter { $0 != $1 }.count
    }

    @Test func cleanNetworkKeepsTheConfiguredBitrate() {
        var generator = SeededGenerator(seed: 3)
        let reports = (0..<200).map { _ -> Report in
            (Double.random(in: 0..<0.015, using: &generator), Double.random(in: 1..<6, using: &generator),
             Double.random(in: 38..<60, using: &generator))
        }
        #expect(targets(reports).allSatisfy { $0 == 24_000 })
    }

    /// Random loss on a path whose delay does not move is FEC's job: lowering the bitrate would
    /// only cost speech.
    @Test func lossWithoutAQueueKeepsTheConfiguredBitrate() {
        var generator = SeededGenerator(seed: 4)
        let reports = (0..<100).map { _ -> Report in
            (Double.random(in: 0.05..<0.25, using: &generator), Double.random(in: 2..<8, using: &generator),
             Double.random(in: 40..<55, using: &generator))
        }
        #expect(targets(reports).allSatisfy { $0 == 24_000 })
    }

    /// The step: 0 → 10 % → 0, the loss coming with a queue (round-trip time and
    /// jitter climbing). Down after two reports, to the floor; back after two clean ones, in
    /// steps; never turning round within a phase.
    @Test func lossStepMovesTheBitrateDownThenBackWithoutOscillating() {
        var generator = SeededGenerator(seed: 5)
        var reports: [Report] = []
        for _ in 0..<12 { reports.append((0, Double.random(in: 2..<4, using: &generator), Double.random(in: 40..<45, using: &generator))) }
        for index in 0..<12 {
            reports.append((Double.random(in: 0.08..<0.12, using: &generator), 12 + Double(index), 80 + 10 * Double(index)))
        }
        for _ in 0..<16 { reports.append((0, Double.random(in: 2..<4, using: &generator), Double.random(in: 40..<45, using: &generator))) }
        let moves = targets(reports)
        #expect(moves[0..<12].allSatisfy { $0 == 24_000 }, "\(moves)")
        #expect(moves[12] == 24_000, "one congested report is not sustained: \(moves)")
        #expect(moves[13] == 20_400, "the second lowers it: \(moves)")
        #expect(moves[14..<24].allSatisfy { $0 == 18_000 }, "down to the floor and held: \(moves)")
        #expect(moves[24] == 18_000, "one clean report does not raise it: \(moves)")
        #expect(Array(moves[25..<29]) == [19_500, 21_000, 22_500, 24_000], "slowly back: \(moves)")
        #expect(moves[29...].allSatisfy { $0 == 24_000 }, "\(moves)")
        #expect(directionChanges(moves) == 1, "one way down, one way up: \(moves)")
    }

    /// A rate that wobbles between congested and clean reports never moves it: each
    /// direction needs two reports in a row.
    @Test func alternatingReportsDoNotFlap() {
        let congested: Report = (0.1, 30, 200)
        let clean: Report = (0, 2, 40)
        var reports: [Report] = [clean, clean, congested, congested, congested, congested]  // down to the floor
        for _ in 0..<20 { reports += [clean, congested] }
        let moves = targets(reports)
        #expect(moves[5] == 18_000)
        #expect(moves[6...].allSatisfy { $0 == 18_000 }, "\(moves)")
        // A queue without loss holds the bitrate where it is: neither congestion nor clear.
        let held = targets([clean, congested, congested, (0, 30, 200), (0, 30, 200), (0, 30, 200)])
        #expect(held.suffix(4).allSatisfy { $0 == 20_400 }, "\(held)")
    }

    /// Either sign of a queue counts: the round-trip time alone, or the jitter alone (no
    /// RTT measured yet: the far end sent no LSR).
    @Test func rttOrJitterAloneShowsTheQueue() {
        let byRTT = targets([(0, 3, 40), (0.1, 3, 75), (0.1, 3, 75)])
        #expect(byRTT.last == 20_400)
        let byJitter = targets([(0, 3, nil), (0.1, 14, nil), (0.1, 14, nil)])
        #expect(byJitter.last == 20_400)
        let neither = targets([(0, 3, 40), (0.1, 12, 65), (0.1, 12, 65), (0.1, 12, 65)])
        #expect(neither.allSatisfy { $0 == 24_000 }, "below both thresholds: \(neither)")
    }

    /// A path that got longer (a new route) stops looking queued: the baseline follows
    /// reports without loss up; a queue that comes with loss does not lift its own baseline.
    @Test func baselineFollowsALongerPathButNotACongestedQueue() {
        var reports: [Report] = [(0, 3, 40)]
        reports += Array(repeating: (0, 3, 160), count: 30)      // the new route, no loss
        reports += Array(repeating: (0.1, 3, 165), count: 4)     // loss, no queue on the new path
        #expect(targets(reports).allSatisfy { $0 == 24_000 }, "\(targets(reports))")
        var congested: [Report] = [(0, 3, 40)]
        congested += Array(repeating: (0.1, 3, 160), count: 30)  // a standing queue with loss
        #expect(targets(congested).last == 18_000)
    }

    @Test func brokenNumbersChangeNothing() {
        let broken: [Report] = [
            (.nan, .nan, .nan), (.infinity, .infinity, .infinity), (-1, -5, -40), (0, 3, 1e300), (.nan, 3, nil),
            (-.infinity, -.infinity, -.infinity), (5, 3, 40), (5, 3, 40),
        ]
        let moves = targets(broken)
        #expect(moves.allSatisfy { $0 == 24_000 }, "\(moves)")
    }

    @Test func rangeOfOneBitrateNeverMoves() {
        let congested: [Report] = [(0, 3, 40)] + Array(repeating: (0.2, 40, 300), count: 20)
        #expect(targets(congested, maximum: 16_000, minimum: 18_000).allSatisfy { $0 == 16_000 }, "a floor above the cap is the cap")
        #expect(targets(congested, maximum: 64_000, minimum: 12_000).last == 12_000)
        #expect(BitrateAdaptation(maximumBitrate: 18_500, minimumBitrate: 18_000).raiseStep == 500)
    }

    /// Through two calls: Alice → Bob loses 10 % from 20 s to 40 s while its queue grows
    /// (one-way delay 30 → 230 ms), nothing before or after. Bob's receiver reports lower
    /// Alice's bitrate, and it comes back once the path is clean; on the clean start and the
    /// clean end it is the configured 24 kb/s, in statistics and on the wire (24 rather than the
    /// default 32: two steps reach the floor within the 20 s of congestion).
    @Test func congestionThroughRTCPLowersTheBitrateAndCleanReportsRaiseItBack() async throws {
        try await offCooperativePool {
            var generator = SeededGenerator(seed: 9)
            let frames = 4_500
            let packets = (0..<frames).map { index -> TracePacket in
                let send = Double(index) * 20
                let congested = (1_000..<2_000).contains(index)
                let queue = congested ? Double(index - 1_000) / 5 : 0
                let lost = congested && Double.random(in: 0..<1, using: &generator) < 0.10
                return TracePacket(sequence: index, sendMs: send, arrivalMs: lost ? nil : send + 30 + queue)
            }
            let aliceToBob = SimulatedLink(trace: NetworkTrace(packets: packets))
            var payloadBytesPerSecond = [Int](repeating: 0, count: frames / 50 + 1)
            aliceToBob.observer = { datagram, ms in
                guard !CallMedia.isRTCP(datagram), let view = try? RTPPacketView(datagram) else { return }
                payloadBytesPerSecond[Int(ms / 1_000)] += view.payload.count
            }
            let bobToAlice = SimulatedLink(trace: nil)
            bobToAlice.fixedDelayMs = 30
            var configuration = MediaConfiguration()
            configuration.bitrate = 24_000
            let loop = try CallLoop(configuration: configuration, aliceToBob: aliceToBob, bobToAlice: bobToAlice, srtp: false)
            var target: [Int] = []
            for _ in 0..<(frames / 50) {
                loop.run(frames: 50, aliceMicrophone: { index, _ in CallLoop.frame(index % 400, of: CallOverNetworkTests.alice, length: 960) },
                         bobMicrophone: { index, _ in CallLoop.frame(index % 400, of: CallOverNetworkTests.bob, length: 960) })
                target.append(loop.alice.call.statistics.outbound.targetBitrate)
            }
            #expect(target[0..<21].allSatisfy { $0 == 24_000 }, "the configured bitrate on the clean start: \(target)")
            #expect(target[30..<42].contains { $0 == 18_000 }, "down to the floor while congested: \(target)")
            #expect(target.suffix(10).allSatisfy { $0 == 24_000 }, "back once clean: \(target)")
            #expect(directionChanges(target) == 1, "one way down, one way up: \(target)")
            #expect(loop.bob.call.statistics.outbound.targetBitrate == 24_000, "Bob's clean direction never moved")
            // On the wire: Alice's payload follows, over the same 8 s of speech (the fixture loops
            // every 8 s): at 24 kb/s on the clean start, at the floor from 40 s.
            #expect(target[39..<48].allSatisfy { $0 == 18_000 }, "\(target)")
            let clean = payloadBytesPerSecond[8..<16].reduce(0, +), low = payloadBytesPerSecond[40..<48].reduce(0, +)
            #expect(Double(low) < Double(clean) * 0.8, "payload \(low) B at the floor against \(clean) B at 24 kb/s")
        }
    }
}
