// SPDX-License-Identifier: Apache-2.0
@testable import JitterBuffer
import RTP
import Testing

/// The first packets' lateness raises the delay playout starts at (`StartUpLateness`): a slow
/// path's first sentence is played at the delay it needs instead of climbing to it one
/// concealed packet at a time; a clean path, and a burst released after a stall, start at the
/// initial delay.
@Suite struct StartUpLatenessTests {
    typealias F = StreamFixture

    @Test func latenessIsCountedAgainstTheFastestPacketBefore() {
        var jittery = StartUpLateness()
        for offset in [40.0, 45, 160, 42, 38] { jittery.add(offsetMs: offset) }
        #expect(jittery.latenessMs == 120)
        #expect(jittery.floorMs == 3 * 120)
        // A stall's backlog released at once: each packet faster than the one before.
        var burst = StartUpLateness()
        for offset in [100.0, 80, 60, 40, 20, 0, 1] { burst.add(offsetMs: offset) }
        #expect(burst.latenessMs == 1)
        burst.add(offsetMs: .nan)
        #expect(burst.latenessMs == 1, "a broken offset counts nothing")
        burst.reset()
        #expect(burst.floorMs == 0)
    }

    /// The time of the first tick that played a packet of `deliveries` (a frame per tick).
    static func firstPlayMs(_ deliveries: [F.Delivery]) throws -> Double? {
        let buffer = try AdaptiveJitterBuffer(configuration: JitterBufferConfiguration())
        return LearntDelaysTests.play(deliveries, into: buffer)
    }

    @Test func aLatePacketAmongTheFirstDelaysTheStart() throws {
        let initial = Double(JitterBufferConfiguration().initialDelayMs)
        let clean = try #require(try Self.firstPlayMs(F.stream(count: 100)))
        // Sent from 0, arriving 5 ms later: playout starts once the first has waited the initial delay.
        #expect(clean >= 5 + initial - 5 && clean <= 5 + initial + F.frameMs, "\(clean)")
        // The third packet 100 ms behind the others: a path whose tail is about three times that.
        let slow = F.stream(count: 100).enumerated().map { index, delivery in
            var delivery = delivery
            if index == 2 { delivery.arrivalMs += 100 }
            return delivery
        }
        let late = try #require(try Self.firstPlayMs(slow))
        #expect(late >= 5 + 300 - 5 && late <= 5 + 300 + F.frameMs, "\(late)")
        // The first 100 ms of packets held back and released at once (a start-up burst).
        let burst = F.stream(count: 100).map { delivery in
            var delivery = delivery
            delivery.arrivalMs = max(delivery.arrivalMs, 105)
            return delivery
        }
        let afterBurst = try #require(try Self.firstPlayMs(burst))
        #expect(afterBurst <= 105 + initial + F.frameMs, "\(afterBurst)")
    }
}
