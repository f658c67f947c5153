// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

@Suite struct NormalOperationTests {
    @Test func queuesTheFrameAsItIsAndEndsConcealment() {
        let queue = OperationFixture.queue()
        var state = PlayoutState()
        state.expandedSamples = 960
        state.waitedSamples = 960
        state.followsConcealment = true
        let frame = OperationFixture.voicedFrame
        frame.withUnsafeBufferPointer {
            NormalOperation(queue: queue).run($0, packet: OperationFixture.packet(sequence: 65_537, arrivalMs: 940), state: &state)
        }
        let (samples, emission) = OperationFixture.drain(queue, nowMs: 1_000)
        #expect(samples == frame)
        #expect(emission.started?.kind == .normal)
        #expect(emission.firstStartedSequence == 1)  // the RTP sequence number: the extended one's low 16 bits
        // Packet audio: counted in the W3C delay (60 ms from arrival to emission per sample).
        #expect(emission.packetSamples == 960)
        #expect(abs(emission.delaySeconds - 960 * 0.060) < 1e-9)
        #expect(state.expandedSamples == 0 && state.waitedSamples == 0 && !state.followsConcealment && state.lastKind == .normal)
    }

    /// Right after concealment the frame is played as decoded (libopus made the seam) and booked as a merge.
    @Test func aMergeIsTheDecodedFrameBookedAsAMerge() {
        let queue = OperationFixture.queue()
        var state = OperationFixture.state()
        state.expandedSamples = 1_920
        state.followsConcealment = true
        state.lastKind = .expand
        let frame = OperationFixture.voicedFrame
        frame.withUnsafeBufferPointer {
            NormalOperation(queue: queue).run($0, packet: OperationFixture.packet(), kind: .merge, state: &state)
        }
        let (samples, emission) = OperationFixture.drain(queue)
        #expect(samples == frame)
        #expect(emission.started?.kind == .merge && emission.firstStartedSequence == 100)
        #expect(state.expandedSamples == 0 && !state.followsConcealment && state.lastKind == .merge)
    }
}
