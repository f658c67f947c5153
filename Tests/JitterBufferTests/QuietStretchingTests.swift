// SPDX-License-Identifier: Apache-2.0
import Testing
import JitterBuffer

/// Stretching toward the target waits for a pause: whole-buffer runs on a virtual clock where
/// the delay must come down by 60 ms (the first packets took a slower path than the rest).
@Suite struct QuietStretchingTests {
    typealias F = StreamFixture

    /// 12 s of `talk` (or the pause-less voice); packets before 1.2 s arrive 60 ms later than the
    /// rest, so once the faster ones come the margin is 60 ms above the (fixed, 45 ms) target.
    static func run(talk: Bool) throws -> [F.Tick] {
        var deliveries = F.stream(count: 600, talk: talk)
        for index in 0..<60 { deliveries[index].arrivalMs += 60 }
        return F.run(try F.fixedDelayBuffer(delayMs: 45), deliveries: deliveries, ticks: 600)
    }

    /// The packet index (0…) of each tick that accelerated.
    static func accelerated(_ ticks: [F.Tick]) -> [(tick: Int, packet: Int)] {
        ticks.enumerated().compactMap { tick, outcome in
            guard outcome.event.kind == .accelerate, let sequence = outcome.event.sequenceNumber else { return nil }
            return (tick, Int(sequence &- 1_000))
        }
    }

    @Test func talkIsStretchedOnlyInItsPauses() throws {
        let ticks = try Self.run(talk: true)
        let accelerated = Self.accelerated(ticks)
        let figures: Comment = "accelerated packets \(accelerated.map(\.packet))"
        #expect(!accelerated.isEmpty, figures)
        #expect(accelerated.allSatisfy { $0.packet % 100 >= 80 }, figures)
        // Not in the pause's first quiet frames: only once it has lasted 60 ms
        // (`AdaptiveJitterBuffer.pauseBeforeStretchMs`: three quiet frames decoded, the third
        // being the one stretched). Frame 82 is the pause's first quiet one as decoded (the
        // decoder's tail and the detector's floor take two), where a stretch came before.
        #expect(accelerated.allSatisfy { $0.packet % 100 >= 84 }, figures)
        // The 60 ms came out in the first two pauses (the first one's frames after its first
        // 60 ms took most of it): nothing left to remove after them.
        #expect(accelerated.allSatisfy { $0.packet < 200 }, figures)
        #expect(accelerated.filter { $0.packet < 100 }.count > accelerated.count / 2, figures)
    }

    /// A clean link from the first packet, on the default buffer: the estimate lowers the
    /// target from the initial delay at the 50th packet (1 s, mid-word), leaving the margin far
    /// enough above it that, later in a call, accelerating would not wait for a pause.
    @Test func theStartsDelayComesOutOnlyInPauses() throws {
        let buffer = try AdaptiveJitterBuffer(configuration: JitterBufferConfiguration())
        let ticks = F.run(buffer, deliveries: F.stream(count: 400, talk: true), ticks: 400)
        let accelerated = Self.accelerated(ticks)
        let figures: Comment = "accelerated packets \(accelerated.map(\.packet))"
        #expect(!accelerated.isEmpty, figures)
        // Talk is frames 0–79 of every 100; its pause's first 60 ms are not stretched either.
        #expect(accelerated.allSatisfy { $0.packet % 100 >= 80 }, figures)
        // And the delay did come out: by the third pause the margin is down at the target.
        #expect(accelerated.allSatisfy { $0.packet < 300 }, figures)
        let delayMs = buffer.statistics.jitterBufferDelay * 1_000 / Double(buffer.statistics.jitterBufferEmittedCount)
        #expect(delayMs < Double(JitterBufferConfiguration().initialDelayMs), "mean delay \(delayMs) ms")
    }

    @Test func audioWithoutPausesIsStretchedOncePerDeferral() throws {
        let ticks = try Self.run(talk: false)
        let accelerated = Self.accelerated(ticks)
        let figures: Comment = "accelerated at ticks \(accelerated.map(\.tick))"
        #expect(accelerated.count >= 2, figures)
        let gaps = zip(accelerated.dropFirst(), accelerated).map { $0.tick - $1.tick }
        // A second of deferral (50 frames) between stretches, give or take a production.
        #expect(gaps.allSatisfy { $0 >= 49 }, figures)
    }
}
