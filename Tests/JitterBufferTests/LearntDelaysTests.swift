// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import JitterBuffer
import RTP
import TestSupport

/// A call that starts from what the call before it on the same path learnt
/// (`JitterBufferConfiguration.learntDelays`).
@Suite struct LearntDelaysTests {
    typealias F = StreamFixture

    /// Inserts `deliveries` in arrival order, ticking a frame at a time from 0 to past the
    /// last arrival; returns the receiver time of the first tick that played a packet.
    @discardableResult
    static func play(_ deliveries: [F.Delivery], into buffer: AdaptiveJitterBuffer) -> Double? {
        let sorted = deliveries.sorted { $0.arrivalMs < $1.arrivalMs }
        var pcm = [Int16](repeating: 0, count: F.frameSamples)
        var next = 0
        var firstPlayMs: Double?
        var nowMs = 0.0
        while nowMs <= (sorted.last?.arrivalMs ?? 0) + 1_000 {
            while next < sorted.count, sorted[next].arrivalMs <= nowMs {
                sorted[next].bytes.withUnsafeBytes { raw in
                    if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: sorted[next].arrivalMs) }
                }
                next += 1
            }
            let event = pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: nowMs) }
            if firstPlayMs == nil, event.sequenceNumber != nil { firstPlayMs = nowMs }
            nowMs += F.frameMs
        }
        return firstPlayMs
    }

    /// A slow path: every third packet 250 ms behind the others.
    static func slowPath(count: Int, ssrc: UInt32 = 0x1234_5678) -> [F.Delivery] {
        F.stream(count: count, ssrc: ssrc).enumerated().map { index, delivery in
            var delivery = delivery
            if index % 3 == 1 { delivery.arrivalMs += 250 }
            return delivery
        }
    }

    static func buffer(learnt: LearntDelays?) throws -> AdaptiveJitterBuffer {
        var configuration = JitterBufferConfiguration()
        configuration.learntDelays = learnt
        return try AdaptiveJitterBuffer(configuration: configuration)
    }

    @Test func aSecondCallOnASlowPathStartsAtTheDelayTheFirstLearnt() throws {
        let first = try Self.buffer(learnt: nil)
        #expect(first.learntDelays == nil)  // nothing learnt before a packet
        Self.play(Self.slowPath(count: 200), into: first)
        let learnt = try #require(first.learntDelays)
        #expect(first.targetDelayMs >= 250)
        #expect(abs(learnt.weights.reduce(0, +) - 1) < 1e-9)

        let fresh = try Self.buffer(learnt: nil)
        let second = try Self.buffer(learnt: learnt)
        // Before its first packet: the initial delay for a buffer that knows nothing, the
        // path's delay for one that learnt it.
        #expect(fresh.targetDelayMs == Double(JitterBufferConfiguration().initialDelayMs))
        #expect(second.targetDelayMs == first.targetDelayMs)
        // So its first packet waits the path's delay (less the 5 ms tolerance) before playing,
        // where the fresh buffer's waits the initial delay.
        let path = Self.slowPath(count: 50, ssrc: 0x0BAD_CAFE)
        let firstArrival = path[0].arrivalMs
        let secondStart = try #require(Self.play(path, into: second))
        let freshStart = try #require(Self.play(path, into: fresh))
        #expect(secondStart - firstArrival >= first.targetDelayMs - 5)
        #expect(freshStart - firstArrival < first.targetDelayMs - 5)
        // And nothing it played was late: every packet of the slow path arrived in time.
        #expect(second.statistics.packetsDiscarded == 0)
        #expect(fresh.statistics.packetsDiscarded > 0)
    }

    /// The engine's way to read what was learnt: the playout thread copies it into storage
    /// made beforehand, allocating nothing, and another thread builds the value from the copy:
    /// the same value `learntDelays` gives.
    @Test func copyingWhatWasLearntAllocatesNothingAndGivesTheSameValue() throws {
        let buffer = try Self.buffer(learnt: nil)
        let weights = UnsafeMutableBufferPointer<Double>.allocate(capacity: buffer.learntDelaysCapacity)
        defer { weights.deallocate() }
        #expect(buffer.copyLearntDelays(into: weights).weightCount == 0)  // nothing learnt yet
        #expect(LearntDelays(normalizing: UnsafeBufferPointer(rebasing: weights[..<0]), lossWasRecent: false) == nil)
        Self.play(Self.slowPath(count: 200), into: buffer)
        let (copied, allocations) = AllocationCounter.measure { buffer.copyLearntDelays(into: weights) }
        #expect(allocations == 0)
        #expect(copied.weightCount == buffer.learntDelaysCapacity)
        let rebuilt = LearntDelays(normalizing: UnsafeBufferPointer(rebasing: weights[..<copied.weightCount]), lossWasRecent: copied.lossWasRecent)
        #expect(rebuilt != nil)
        #expect(rebuilt == buffer.learntDelays)
    }

    @Test func aCleanPathLearntLowersTheInitialDelayOnlyAsTheEstimateWould() throws {
        let first = try Self.buffer(learnt: nil)
        Self.play(F.stream(count: 200), into: first)
        let learnt = try #require(first.learntDelays)
        #expect(first.targetDelayMs < 10)
        // A learnt target under the initial delay does not lower the call's first packets'.
        let targets = try StartUpTargetTests.targets(after: F.stream(count: 60), configuration: {
            var configuration = JitterBufferConfiguration()
            configuration.learntDelays = learnt
            return configuration
        }())
        let initial = Double(JitterBufferConfiguration().initialDelayMs)
        #expect(targets.prefix(49).allSatisfy { $0 == initial }, "\(targets)")
        #expect(targets[49] < 10, "\(targets)")
    }

    @Test func aPathThatLostPacketsKeepsTheLossMarginFromTheStart() throws {
        let clean = try Self.buffer(learnt: nil)
        Self.play(F.stream(count: 100), into: clean)
        #expect(clean.learntDelays?.lossWasRecent == false)

        var lossy = F.stream(count: 100)
        lossy.remove(at: 40)  // one packet lost
        let first = try Self.buffer(learnt: nil)
        Self.play(lossy, into: first)
        let learnt = try #require(first.learntDelays)
        #expect(learnt.lossWasRecent)
        // The next call, lossless so far, still reports the loss it started with (it is recent).
        let second = try Self.buffer(learnt: learnt)
        Self.play(F.stream(count: 20, ssrc: 0x0BAD_CAFE), into: second)
        #expect(second.learntDelays?.lossWasRecent == true)
    }

    @Test func aDistributionNoBufferCanStartFromIsRefused() {
        let valid = LearntDelays(bucketMs: 2, weights: [0.5, 0.5], lossWasRecent: false)
        #expect((try? Self.buffer(learnt: valid)) != nil)
        let invalid: [LearntDelays] = [
            LearntDelays(bucketMs: 5, weights: [0.5, 0.5], lossWasRecent: false),  // another bucket width
            LearntDelays(bucketMs: 2, weights: [], lossWasRecent: false),
            LearntDelays(bucketMs: 2, weights: [0, 0], lossWasRecent: false),
            LearntDelays(bucketMs: 2, weights: [1, -0.5], lossWasRecent: false),
            LearntDelays(bucketMs: 2, weights: [1, .nan], lossWasRecent: false),
            LearntDelays(bucketMs: 2, weights: [1, .infinity], lossWasRecent: false),
            LearntDelays(bucketMs: 2, weights: [.greatestFiniteMagnitude, .greatestFiniteMagnitude], lossWasRecent: false),
            LearntDelays(bucketMs: 2, weights: [Double](repeating: 1, count: LearntDelays.maximumBucketCount + 1), lossWasRecent: false),
        ]
        for learnt in invalid {
            #expect(throws: JitterBufferError.invalidLearntDelays) { try Self.buffer(learnt: learnt) }
        }
    }

    @Test func aDistributionLongerThanTheMaximumDelayFoldsItsTailIntoTheLastBucket() throws {
        // 2 s of buckets, all the weight at 1.5 s, into a buffer that may wait at most 400 ms.
        var weights = [Double](repeating: 0, count: 1_000)
        weights[750] = 1
        var configuration = JitterBufferConfiguration()
        configuration.maximumDelayMs = 400
        configuration.learntDelays = LearntDelays(bucketMs: 2, weights: weights, lossWasRecent: false)
        let buffer = try AdaptiveJitterBuffer(configuration: configuration)
        #expect(buffer.targetDelayMs == 400)
    }

    @Test func itSurvivesBeingKeptAsJSON() throws {
        let first = try Self.buffer(learnt: nil)
        Self.play(Self.slowPath(count: 100), into: first)
        let learnt = try #require(first.learntDelays)
        let decoded = try JSONDecoder().decode(LearntDelays.self, from: JSONEncoder().encode(learnt))
        #expect(decoded == learnt)
    }
}
