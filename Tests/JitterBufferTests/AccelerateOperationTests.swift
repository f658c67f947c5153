// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

@Suite struct AccelerateOperationTests {
    static func run(_ frame: [Int16], extent: AccelerateOperation.Extent) -> (accelerated: Bool, queued: [Int16], statistics: JitterBufferStatistics, state: PlayoutState) {
        let queue = OperationFixture.queue()
        let accelerate = AccelerateOperation(sampleRate: 48_000, maximumFrameCount: 5_760, queue: queue)
        var state = PlayoutState()
        state.lastKind = .normal
        var statistics = JitterBufferStatistics()
        var frame = frame
        let accelerated = frame.withUnsafeMutableBufferPointer {
            accelerate.run($0, extent: extent, packet: OperationFixture.packet(), state: &state, statistics: &statistics)
        }
        return (accelerated, OperationFixture.drain(queue).samples, statistics, state)
    }

    /// One pitch period (2.5–10 ms: 120–480 samples) goes from a voiced frame.
    @Test func removesOnePitchPeriodFromAVoicedFrame() {
        let result = Self.run(OperationFixture.voicedFrame, extent: .periods(1))
        #expect(result.accelerated)
        let removed = 960 - result.queued.count
        #expect((120...480).contains(removed), "removed \(removed) samples")
        #expect(result.statistics.removedSamplesForAcceleration == removed)
        #expect(result.state.lastKind == .accelerate)
        // The frame's first and last samples are kept: it joins its neighbours without a click.
        #expect(result.queued.first == OperationFixture.voicedFrame.first && result.queued.last == OperationFixture.voicedFrame.last)
    }

    @Test func fastAccelerateRemovesMorePeriods() {
        let one = Self.run(OperationFixture.voicedFrame, extent: .periods(1))
        let three = Self.run(OperationFixture.voicedFrame, extent: .periods(3))
        #expect(three.accelerated)
        #expect(three.queued.count < one.queued.count, "\(three.queued.count) samples left after up to 3 periods, \(one.queued.count) after 1")
    }

    /// Trimming queued audio never removes more than is queued: the voice's period (120–160 Hz:
    /// 300–400 samples) goes when 420 samples are queued, and nothing when only 200 are.
    @Test func trimmingRemovesNoMoreThanTheQueuedSamples() {
        let trimmed = Self.run(OperationFixture.voicedFrame, extent: .queuedSamples(420))
        #expect(trimmed.accelerated)
        #expect(960 - trimmed.queued.count <= 420 && trimmed.queued.count < 960)
        let kept = Self.run(OperationFixture.voicedFrame, extent: .queuedSamples(200))
        #expect(!kept.accelerated && kept.queued.isEmpty)
    }

    /// Loud noise has no period to remove: nothing is queued and the caller plays the frame as is.
    @Test func leavesAFrameWithoutAPeriodAlone() {
        let result = Self.run(OperationFixture.noiseFrame, extent: .periods(3))
        #expect(!result.accelerated)
        #expect(result.queued.isEmpty)
        #expect(result.statistics == JitterBufferStatistics())
        #expect(result.state.lastKind == .normal)
    }
}
