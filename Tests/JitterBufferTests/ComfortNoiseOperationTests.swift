// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

@Suite struct ComfortNoiseOperationTests {
    static func operation(_ queue: PlayoutQueue) throws -> ComfortNoiseOperation {
        ComfortNoiseOperation(decoders: PayloadDecoders(try OperationFixture.primedDecoder()), queue: queue, sampleRate: 48_000, samplesPerFrame: 960)
    }

    /// A decoded DTX packet starts playing (its sequence number is reported) but is silent
    /// concealment, not packet audio: it does not count in the W3C delay.
    @Test func dtxPacketIsSilentConcealmentWithItsSequenceNumber() throws {
        let queue = OperationFixture.queue()
        var state = PlayoutState()
        state.followsConcealment = true
        var statistics = JitterBufferStatistics()
        let frame = [Int16](repeating: 3, count: 960)
        frame.withUnsafeBufferPointer {
            try? Self.operation(queue).run(dtxFrame: $0, packet: OperationFixture.packet(sequence: 7), state: &state, statistics: &statistics)
        }
        let (samples, emission) = OperationFixture.drain(queue)
        #expect(samples == frame)
        #expect(emission.started?.kind == .comfortNoise && emission.firstStartedSequence == 7)
        #expect(emission.packetSamples == 0)
        #expect(statistics.concealedSamples == 960 && statistics.silentConcealedSamples == 960)
        #expect(statistics.concealmentEvents == 0)
        #expect(!state.followsConcealment && state.lastKind == .comfortNoise)
    }

    /// Over a gap whose end is known, playout moves through it; waiting for the sender's next
    /// packet, it stays and counts the wait.
    @Test(arguments: [true, false])
    func gapAdvancesOrWaits(advancing: Bool) throws {
        let queue = OperationFixture.queue()
        var state = OperationFixture.state()
        state.expandedSamples = 960
        state.followsConcealment = true
        var statistics = JitterBufferStatistics()
        try Self.operation(queue).run(sampleCount: 480, advancing: advancing, state: &state, statistics: &statistics)
        #expect(state.nextTimestamp == (advancing ? 96_480 : 96_000))
        #expect(state.waitedSamples == (advancing ? 0 : 480))
        #expect(state.expandedSamples == 0 && !state.followsConcealment && state.lastKind == .comfortNoise)
        #expect(statistics.concealedSamples == 480 && statistics.silentConcealedSamples == 480)
        let (samples, emission) = OperationFixture.drain(queue)
        #expect(samples.count == 480 && samples.contains { $0 != 0 })  // the decoder's noise, not digital silence
        #expect(emission.started?.kind == .comfortNoise && emission.firstStartedSequence == nil)
    }

    /// The decoder conceals only whole 2.5 ms steps; a ragged span is digital silence.
    @Test func aSpanOfPartialStepsIsSilence() throws {
        let queue = OperationFixture.queue()
        var state = PlayoutState()
        var statistics = JitterBufferStatistics()
        try Self.operation(queue).run(sampleCount: 100, advancing: true, state: &state, statistics: &statistics)
        let samples = OperationFixture.drain(queue).samples
        #expect(samples == [Int16](repeating: 0, count: 100))
        #expect(statistics.silentConcealedSamples == 100)
    }
}
