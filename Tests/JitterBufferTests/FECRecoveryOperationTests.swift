import Testing
@testable import JitterBuffer

@Suite struct FECRecoveryOperationTests {
    @Test func rebuildsTheMissingPacketFromTheNextOnesFEC() throws {
        let queue = OperationFixture.queue()
        let recovery = FECRecoveryOperation(decoder: try OperationFixture.primedDecoder(packets: 20), queue: queue, maximumPacketSamples: 5_760)
        var state = OperationFixture.state(sequence: 120)
        var statistics = JitterBufferStatistics()
        let carrier = OperationFixture.packet(sequence: 121, timestamp: 96_960, arrivalMs: 990, hasFEC: true)
        let payload = StreamFixture.payloads[21]  // the packet after the missing 20th carries its FEC
        let recovered = payload.withUnsafeBytes {
            recovery.run(carrier: carrier, payload: $0, sampleCount: 960, state: &state, statistics: &statistics)
        }
        #expect(recovered)
        #expect(statistics.fecPacketsRecovered == 1)
        #expect(state.nextSequence == 121 && state.nextTimestamp == 96_960)  // the carrier is due next
        #expect(state.lastKind == .fecRecovery)
        let (samples, emission) = OperationFixture.drain(queue, nowMs: 1_000)
        #expect(samples.count == 960 && samples.contains { $0 != 0 })
        #expect(emission.started?.kind == .fecRecovery)
        #expect(emission.firstStartedSequence == 120)  // the recovered packet's number, not the carrier's
        #expect(abs(emission.delaySeconds - 960 * 0.010) < 1e-9)  // timed from the carrier's arrival
    }

    @Test func aPayloadWithoutDecodableFECChangesNothing() throws {
        let queue = OperationFixture.queue()
        let recovery = FECRecoveryOperation(decoder: try OperationFixture.primedDecoder(), queue: queue, maximumPacketSamples: 5_760)
        var state = OperationFixture.state(sequence: 120)
        let before = state
        var statistics = JitterBufferStatistics()
        let empty: [UInt8] = []
        let recovered = empty.withUnsafeBytes {
            recovery.run(carrier: OperationFixture.packet(sequence: 121), payload: $0, sampleCount: 960, state: &state, statistics: &statistics)
        }
        #expect(!recovered)
        #expect(state == before)
        #expect(statistics == JitterBufferStatistics())
        #expect(queue.count == 0)
    }
}
