// SPDX-License-Identifier: Apache-2.0
import JitterBuffer
import RTP
import Testing

/// Arrival times come from the application's clock: one that is not finite or absurdly far
/// (a broken clock) makes the packet unusable — discarded and counted — and leaves every
/// delay figure finite.
@Suite struct ArrivalTimeTests {
    @Test(arguments: [Double.infinity, -Double.infinity, Double.nan, 1e300, -1e13])
    func unusableArrivalTimesAreDiscardedAndDelaysStayFinite(arrival: Double) throws {
        let buffer = try StreamFixture.fixedDelayBuffer()
        let deliveries = StreamFixture.stream(count: 30)
        var pcm = [Int16](repeating: 0, count: buffer.samplesPerFrame)
        for (index, delivery) in deliveries.enumerated() {
            var bytes = delivery.bytes
            bytes.withUnsafeMutableBytes { raw in
                if let view = try? RTPPacketView(UnsafeRawBufferPointer(raw)) {
                    buffer.insert(view, arrivalTimeMs: index == 10 ? arrival : delivery.arrivalMs)
                }
            }
            pcm.withUnsafeMutableBufferPointer { _ = buffer.nextFrame(into: $0, nowMs: delivery.arrivalMs + 1) }
        }
        #expect(buffer.statistics.packetsDiscarded >= 1)
        #expect(buffer.statistics.jitterBufferDelay.isFinite)
        #expect(buffer.statistics.jitterBufferTargetDelay.isFinite)
        #expect(buffer.targetDelayMs.isFinite)
    }
}
