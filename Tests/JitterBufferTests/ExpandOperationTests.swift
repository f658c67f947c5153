// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

@Suite struct ExpandOperationTests {
    static func expand(_ queue: PlayoutQueue) throws -> ExpandOperation {
        ExpandOperation(decoders: PayloadDecoders(try OperationFixture.primedDecoder()), queue: queue, sampleRate: 48_000, samplesPerFrame: 960)
    }

    /// Waiting in place: the delay grows by each frame; a run of concealment is one event.
    @Test func waitingConcealsWithoutAdvancing() throws {
        let queue = OperationFixture.queue()
        let expand = try Self.expand(queue)
        var state = OperationFixture.state()
        var statistics = JitterBufferStatistics()
        expand.run(.waiting, inSilence: false, state: &state, statistics: &statistics)
        expand.run(.waiting, inSilence: false, state: &state, statistics: &statistics)
        #expect(state.nextSequence == 100 && state.nextTimestamp == 96_000)
        #expect(state.waitedSamples == 1_920 && state.expandedSamples == 1_920)
        #expect(state.followsConcealment && state.lastKind == .expand)
        #expect(statistics.concealmentEvents == 1)
        #expect(statistics.concealedSamples == 1_920)
        let (samples, emission) = OperationFixture.drain(queue)
        #expect(samples.count == 1_920)
        #expect(emission.started?.kind == .expand && emission.firstStartedSequence == nil)
        #expect(emission.packetSamples == 0)  // concealment is not packet audio in the W3C delay
        #expect(samples.contains { $0 != 0 })  // the decoder continues the voice it had decoded
    }

    /// Advancing: each frame spends part of the missing span; once it is spent the packet after
    /// it is due (and will merge in).
    @Test func advancingSpendsTheMissingSpanThenMovesToTheNextPacket() throws {
        let queue = OperationFixture.queue()
        let expand = try Self.expand(queue)
        var state = OperationFixture.state()
        var statistics = JitterBufferStatistics()
        let next = OperationFixture.packet(sequence: 102, timestamp: 96_000 + 1_920)
        expand.run(.advancing(toward: next), inSilence: false, state: &state, statistics: &statistics)
        #expect(state.nextSequence == 100 && state.nextTimestamp == 96_960)
        expand.run(.advancing(toward: next), inSilence: false, state: &state, statistics: &statistics)
        #expect(state.nextSequence == 102 && state.nextTimestamp == 96_000 + 1_920)
        #expect(state.waitedSamples == 0 && state.expandedSamples == 1_920)
        // Without a known next packet (a corrupt payload's span) it only moves on by a frame.
        expand.run(.advancing(toward: nil), inSilence: false, state: &state, statistics: &statistics)
        #expect(state.nextSequence == 102 && state.nextTimestamp == 96_000 + 2_880)
    }

    /// Concealment is exactly libopus's, frame for frame, and leaves the decoder where a
    /// receiver calling libopus directly would have it: the packet after it decodes (merges)
    /// to the very same samples. A concealment that ran ahead of the frame would shift both.
    @Test func concealmentAndTheMergeAreTheDecodersOwnSignal() throws {
        let queue = OperationFixture.queue()
        let decoder = try OperationFixture.primedDecoder()
        let reference = try OperationFixture.primedDecoder()
        let expand = ExpandOperation(decoders: PayloadDecoders(decoder), queue: queue, sampleRate: 48_000, samplesPerFrame: 960)
        var state = OperationFixture.state()
        var statistics = JitterBufferStatistics()
        var expected = [Int16](repeating: 0, count: 960)
        for _ in 0..<3 {
            expand.run(.waiting, inSilence: false, state: &state, statistics: &statistics)
            _ = try expected.withUnsafeMutableBufferPointer { try reference.conceal(into: $0) }
            #expect(OperationFixture.drain(queue).samples == expected)
        }
        #expect(state.followsConcealment)
        var merged = [Int16](repeating: 0, count: 5_760)
        var direct = [Int16](repeating: 0, count: 5_760)
        let payload = StreamFixture.payloads[13]
        let count = try payload.withUnsafeBytes { bytes in try merged.withUnsafeMutableBufferPointer { try decoder.decode(bytes, into: $0) } }
        _ = try payload.withUnsafeBytes { bytes in try direct.withUnsafeMutableBufferPointer { try reference.decode(bytes, into: $0) } }
        #expect(count == 960 && merged == direct && merged.contains { $0 != 0 })
    }
}
