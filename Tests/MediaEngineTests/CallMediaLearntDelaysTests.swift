// SPDX-License-Identifier: Apache-2.0
import CallCore
import JitterBuffer
import MediaEngineTesting
import NetworkSimulation
import Testing

/// A call hands what its jitter buffer learnt of the path (`CallMedia.learntDelays`) to the
/// next call on it (`MediaConfiguration.jitterBuffer.learntDelays`), through the audio side's
/// periodic copy.
@Suite struct CallMediaLearntDelaysTests {
    static let frames = 250

    /// A slow path: every third packet 250 ms behind the others.
    static let slowPath = NetworkTrace(packets: (0..<(frames + 100)).map { index in
        TracePacket(sequence: index, sendMs: Double(index) * 20,
                    arrivalMs: Double(index) * 20 + 20 + (index % 3 == 1 ? 250 : 0))
    })

    /// Alice talking to Bob over the slow path, Bob's jitter buffer starting from `learnt`.
    static func call(learnt: LearntDelays?) throws -> CallLoop {
        var configuration = MediaConfiguration()
        configuration.jitterBuffer.learntDelays = learnt
        return try CallLoop(configuration: configuration, aliceToBob: SimulatedLink(trace: slowPath))
    }

    static func run(_ loop: CallLoop) {
        loop.run(frames: frames,
                 aliceMicrophone: { index, _ in CallLoop.frame(index, of: CallOverNetworkTests.alice, length: 960) },
                 bobMicrophone: { _, _ in [Int16](repeating: 0, count: 960) })
    }

    @Test func aSecondCallOnTheSlowPathStartsFromWhatTheFirstLearnt() throws {
        let first = try Self.call(learnt: nil)
        #expect(first.bob.call.learntDelays == nil, "nothing learnt before the call played")
        Self.run(first)
        let learnt = try #require(first.bob.call.learntDelays)
        #expect(learnt.bucketMs == 2)
        #expect(abs(learnt.weights.reduce(0, +) - 1) < 1e-9)
        // A third of the packets came 250 ms (bucket 125) behind the others.
        let slowShare = learnt.weights[120...].reduce(0, +)
        #expect(slowShare > 0.25 && slowShare < 0.45, "share learnt 240 ms or more late: \(slowShare)")
        // The first call learnt the path by discarding its slow packets at the start.
        #expect(first.bob.call.statistics.inbound.packetsDiscarded > 0)

        let second = try Self.call(learnt: learnt)
        Self.run(second)
        #expect(second.bob.call.statistics.inbound.packetsDiscarded == 0, "the second call waited for the slow packets from its first")
        #expect(second.bob.call.learntDelays != nil)
    }
}
