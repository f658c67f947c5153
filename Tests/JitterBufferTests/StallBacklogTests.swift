// SPDX-License-Identifier: Apache-2.0
import Testing
import JitterBuffer

/// A delay spike: the path stalls, then releases what it held back to back. Under the default
/// FEC-first policy playout resumes near its target, dropping the backlog beyond what
/// accelerating takes out unhurried; the waiting policy plays every packet.
@Suite struct StallBacklogTests {
    typealias F = StreamFixture

    /// 100 packets arriving 5 ms after sending, except those due during a 600 ms stall from
    /// 800 ms (packets 40–69), which arrive when it ends, in order, 0.1 ms apart.
    static func stalled() -> [F.Delivery] {
        F.stream(count: 100).enumerated().map { index, delivery in
            var delivery = delivery
            if (40..<70).contains(index) { delivery.arrivalMs = 1_400 + Double(index - 40) * 0.1 }
            return delivery
        }
    }

    @Test func theBacklogBeyondWhatAcceleratingTakesOutIsDropped() throws {
        let buffer = try F.adaptiveBuffer()  // target 45 ms: lowest margin 40 ms
        let started = F.allStarted(F.run(buffer, deliveries: Self.stalled(), ticks: 160))
        // Packet 40 lands alone at the 1 400 ms tick: playout waits a tick for the rest. At
        // 1 420 ms packet k's margin is 1 415 − 20 k ms: playout resumes at the last packet
        // whose successor is under 40 + 120 ms (packet 62, at 175 ms), the 22 before it dropped.
        #expect(started.filter { (1_040..<1_062).contains($0) }.isEmpty, "\(started)")
        #expect(started.filter { $0 >= 1_062 } == Array(1_062..<1_100))
        #expect(buffer.statistics.packetsDiscarded == 22)
    }

    @Test func theWaitingPolicyPlaysTheWholeBacklog() throws {
        let buffer = try F.adaptiveBuffer(policy: .waitForPacket)
        let started = F.allStarted(F.run(buffer, deliveries: Self.stalled(), ticks: 160))
        #expect(started == Array(1_000..<1_100))
        #expect(buffer.statistics.packetsDiscarded == 0)
    }

    /// A burst of loss also leaves playout waiting with nothing stored, but the packet ending
    /// it is on time: it plays at once, nothing is dropped, and the delay is what it was.
    @Test func thePacketAfterABurstOfLossPlaysAtOnce() throws {
        let deliveries = F.stream(count: 100, fec: false).enumerated().filter { !(40..<50).contains($0.offset) }.map(\.element)
        let buffer = try F.adaptiveBuffer()
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 120)
        func delay(_ sequence: UInt16) -> Double? {
            ticks.first { $0.event.sequenceNumber == sequence }.map { $0.nowMs - Double(sequence - 1_000) * F.frameMs }
        }
        #expect(buffer.statistics.packetsDiscarded == 0)
        let before = try #require(delay(1_039)), after = try #require(delay(1_050))
        #expect(after == before, "delay \(before) ms before the loss, \(after) ms after")
    }
}
