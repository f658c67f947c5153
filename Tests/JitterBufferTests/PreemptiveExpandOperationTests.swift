// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

@Suite struct PreemptiveExpandOperationTests {
    static func run(_ frame: [Int16]) -> (expanded: Bool, queued: [Int16], statistics: JitterBufferStatistics, kind: PlayoutKind?) {
        let queue = OperationFixture.queue()
        let operation = PreemptiveExpandOperation(sampleRate: 48_000, maximumFrameCount: 5_760, queue: queue)
        var state = PlayoutState()
        var statistics = JitterBufferStatistics()
        let expanded = frame.withUnsafeBufferPointer {
            operation.run($0, packet: OperationFixture.packet(), state: &state, statistics: &statistics)
        }
        let (queued, emission) = OperationFixture.drain(queue)
        return (expanded, queued, statistics, emission.started?.kind)
    }

    /// One pitch period (120–480 samples at 48 kHz) is repeated in a voiced frame.
    @Test func insertsOnePitchPeriodIntoAVoicedFrame() {
        let result = Self.run(OperationFixture.voicedFrame)
        #expect(result.expanded)
        let inserted = result.queued.count - 960
        #expect((120...480).contains(inserted), "inserted \(inserted) samples")
        #expect(result.statistics.insertedSamplesForDeceleration == inserted)
        #expect(result.kind == .preemptiveExpand)
        #expect(result.queued.first == OperationFixture.voicedFrame.first && result.queued.last == OperationFixture.voicedFrame.last)
    }

    @Test func leavesAFrameWithoutAPeriodAlone() {
        let result = Self.run(OperationFixture.noiseFrame)
        #expect(!result.expanded)
        #expect(result.queued.isEmpty)
        #expect(result.statistics == JitterBufferStatistics())
    }
}
