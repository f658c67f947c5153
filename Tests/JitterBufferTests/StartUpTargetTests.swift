// SPDX-License-Identifier: Apache-2.0
import Testing
import JitterBuffer
import RTP

/// The target over a stream's first packets: the initial delay, which the estimate may raise
/// from the 10th packet on and lower only from the 50th.
@Suite struct StartUpTargetTests {
    typealias F = StreamFixture

    /// The target of a buffer of `configuration` (the default) after each of `deliveries` is
    /// inserted, in arrival order.
    static func targets(after deliveries: [F.Delivery], configuration: JitterBufferConfiguration = JitterBufferConfiguration()) throws -> [Double] {
        let buffer = try AdaptiveJitterBuffer(configuration: configuration)
        return deliveries.sorted { $0.arrivalMs < $1.arrivalMs }.map { delivery in
            delivery.bytes.withUnsafeBytes { raw in
                if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: delivery.arrivalMs) }
            }
            return buffer.targetDelayMs
        }
    }

    @Test func aSlowPathRaisesTheTargetFromTheTenthPacket() throws {
        // Every third packet 250 ms behind the others: a third of them would be late at the initial delay.
        let deliveries = F.stream(count: 60).enumerated().map { index, delivery in
            var delivery = delivery
            if index % 3 == 1 { delivery.arrivalMs += 250 }
            return delivery
        }
        let targets = try Self.targets(after: deliveries)
        let initial = Double(JitterBufferConfiguration().initialDelayMs)
        #expect(targets.prefix(9).allSatisfy { $0 == initial }, "\(targets)")
        // The first late packet is the 10th to arrive; four are among the first 20.
        #expect(targets[19] >= 250, "\(targets)")  // with 50 packets needed: still the initial delay here
    }

    @Test func aCleanPathLowersTheTargetOnlyFromTheFiftiethPacket() throws {
        let initial = Double(JitterBufferConfiguration().initialDelayMs)
        let targets = try Self.targets(after: F.stream(count: 60))
        #expect(targets.prefix(49).allSatisfy { $0 == initial }, "\(targets)")
        #expect(targets[49] < initial, "\(targets)")
    }
}
