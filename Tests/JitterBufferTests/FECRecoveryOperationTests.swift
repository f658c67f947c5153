// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

@Suite struct FECRecoveryOperationTests {
    @Test func rebuildsTheMissingPacketFromTheNextOnesFEC() throws {
        let queue = OperationFixture.queue()
        let recovery = FECRecoveryOperation(decoders: PayloadDecoders(try OperationFixture.primedDecoder(packets: 20)), queue: queue, maximumPacketSamples: 5_760)
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
        let recovery = FECRecoveryOperation(decoders: PayloadDecoders(try OperationFixture.primedDecoder()), queue: queue, maximumPacketSamples: 5_760)
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

    /// The last packet of a lost burst, after concealment covered the others: the one rebuilt is
    /// the carrier's predecessor, and the result is what libopus gives a receiver that conceals
    /// the first lost frames and decodes the carrier's FEC for the last.
    @Test func rebuildsTheLastPacketOfABurstAfterConcealment() throws {
        let queue = OperationFixture.queue()
        let decoder = try OperationFixture.primedDecoder(packets: 20)
        let reference = try OperationFixture.primedDecoder(packets: 20)
        let expand = ExpandOperation(decoders: PayloadDecoders(decoder), queue: queue, sampleRate: 48_000, samplesPerFrame: 960)
        let recovery = FECRecoveryOperation(decoders: PayloadDecoders(decoder), queue: queue, maximumPacketSamples: 5_760)
        // Packets 120 and 121 lost; 122 carries FEC for 121.
        var state = OperationFixture.state(sequence: 120, timestamp: 96_000)
        var statistics = JitterBufferStatistics()
        let carrier = OperationFixture.packet(sequence: 122, timestamp: 97_920, arrivalMs: 990, hasFEC: true)
        expand.run(.advancing(toward: carrier), inSilence: false, state: &state, statistics: &statistics)
        #expect(state.nextSequence == 120 && state.nextTimestamp == 96_960 && state.expandedSamples == 960)
        _ = OperationFixture.drain(queue)
        let payload = StreamFixture.payloads[22]
        let recovered = payload.withUnsafeBytes {
            recovery.run(carrier: carrier, payload: $0, sampleCount: 960, state: &state, statistics: &statistics)
        }
        #expect(recovered)
        #expect(state.nextSequence == 122 && state.nextTimestamp == 97_920 && state.expandedSamples == 0)
        let (samples, emission) = OperationFixture.drain(queue)
        #expect(emission.started?.kind == .fecRecovery && emission.firstStartedSequence == 121)
        var concealed = [Int16](repeating: 0, count: 960)
        var expected = [Int16](repeating: 0, count: 960)
        _ = try concealed.withUnsafeMutableBufferPointer { try reference.conceal(into: $0) }
        _ = try payload.withUnsafeBytes { bytes in try expected.withUnsafeMutableBufferPointer { try reference.decodeFEC(from: bytes, into: $0) } }
        #expect(samples == expected && samples.contains { $0 != 0 })
    }
}
