import Testing
@testable import JitterBuffer

@Suite struct ExpandOperationTests {
    static func expand(_ queue: PlayoutQueue) throws -> ExpandOperation {
        ExpandOperation(decoder: try OperationFixture.primedDecoder(), queue: queue, sampleRate: 48_000, samplesPerFrame: 960)
    }

    /// Waiting in place: the delay grows by each frame; a run of concealment is one event.
    @Test func waitingConcealsWithoutAdvancing() throws {
        let queue = OperationFixture.queue()
        let expand = try Self.expand(queue)
        var state = OperationFixture.state()
        var statistics = JitterBufferStatistics()
        expand.run(.waiting, state: &state, statistics: &statistics)
        expand.run(.waiting, state: &state, statistics: &statistics)
        #expect(state.nextSequence == 100 && state.nextTimestamp == 96_000)
        #expect(state.waitedSamples == 1_920 && state.expandedSamples == 1_920)
        #expect(state.hasMergeTail && state.lastKind == .expand)
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
        expand.run(.advancing(toward: next), state: &state, statistics: &statistics)
        #expect(state.nextSequence == 100 && state.nextTimestamp == 96_960)
        expand.run(.advancing(toward: next), state: &state, statistics: &statistics)
        #expect(state.nextSequence == 102 && state.nextTimestamp == 96_000 + 1_920)
        #expect(state.waitedSamples == 0 && state.expandedSamples == 1_920)
        // Without a known next packet (a corrupt payload's span) it only moves on by a frame.
        expand.run(.advancing(toward: nil), state: &state, statistics: &statistics)
        #expect(state.nextSequence == 102 && state.nextTimestamp == 96_000 + 2_880)
    }

    /// The decoder's output stays continuous: each frame begins with the 2.5 ms the previous
    /// concealment produced beyond its own frame.
    @Test func eachConcealedFrameContinuesFromTheLastOnesTail() throws {
        let queue = OperationFixture.queue()
        let expand = try Self.expand(queue)
        var state = PlayoutState()
        var statistics = JitterBufferStatistics()
        expand.run(.waiting, state: &state, statistics: &statistics)
        let tail = Array(expand.tail)
        #expect(tail.count == 120)
        _ = OperationFixture.drain(queue)
        expand.run(.waiting, state: &state, statistics: &statistics)
        let second = OperationFixture.drain(queue).samples
        #expect(Array(second[0..<120]) == tail)
    }
}
