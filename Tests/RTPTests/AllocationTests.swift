// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing
import TestSupport

@Suite("Zero allocations on the per-packet path")
struct AllocationTests {
    @Test func rtpHeaderWriteAndParseAllocateNothing() throws {
        var ext = RTPHeaderExtension(form: .oneByte)
        try ext.append(id: 1, data: CollectionOfOne(0x80 | 30))
        var header = RTPHeader(
            payloadType: 111, sequenceNumber: 0, timestamp: 0, ssrc: 0x1234_5678, csrcs: [1, 2, 3], headerExtension: ext)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1500, alignment: 16)
        defer { buffer.deallocate() }
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: 160, alignment: 16)
        defer { payload.deallocate() }
        payload.initializeMemory(as: UInt8.self, repeating: 0x55)

        func packetRound(_ index: Int) throws -> Int {
            header.sequenceNumber &+= 1
            header.timestamp &+= 960
            header.marker = index % 50 == 0
            header.headerExtension?.removeAll()
            try header.headerExtension?.append(id: 1, data: CollectionOfOne(UInt8(index & 0x7F)))
            let written = try header.write(payload: UnsafeRawBufferPointer(payload), paddingCount: index % 4, into: buffer)
            let packet = try RTPPacketView(UnsafeRawBufferPointer(rebasing: buffer[..<written]))
            var checksum = Int(packet.sequenceNumber) + packet.payload.count
            for index in 0..<packet.csrcCount { checksum &+= Int(packet.csrc(at: index)) }
            if let view = packet.headerExtension {
                for element in view.elements { checksum &+= Int(element.id) + Int(element.data[0]) }
            }
            let copy = try RTPHeader(packet)
            checksum &+= copy.csrcs.count
            return checksum
        }

        _ = try packetRound(0)  // warm up (lazy runtime metadata)
        let (sum, allocations) = try AllocationCounter.measure {
            var sum = 0
            for index in 1...1000 { sum &+= try packetRound(index) }
            return sum
        }
        #expect(sum > 0)
        #expect(allocations == 0)
    }

    // The error path is not measured here: under Swift Testing every `throw` allocates once,
    // in the test library's thrown-error backtrace hook (`swift_willThrow`), not in this code.
    // A plain executable throwing typed errors allocates nothing.

    @Test func receiverStatisticsAllocateNothingInSteadyState() {
        var statistics = RTPReceiverStatistics(ssrc: 42)
        var sequence: UInt16 = 65_000
        var timestamp: UInt32 = 4_294_000_000
        var arrival: UInt32 = 0
        var random = SeededGenerator(seed: 7)
        func step() {
            sequence &+= UInt16.random(in: 0...3, using: &random) == 0 ? 2 : 1  // some loss
            timestamp &+= 960
            arrival &+= 960 &+ UInt32.random(in: 0...200, using: &random)
            statistics.record(sequenceNumber: sequence, timestamp: timestamp, arrivalTime: arrival, payloadBytes: 80)
            if sequence % 7 == 0 {
                statistics.record(sequenceNumber: sequence, timestamp: timestamp, arrivalTime: arrival, payloadBytes: 80)
            }
        }
        for _ in 0..<10 { step() }
        let (block, allocations) = AllocationCounter.measure {
            for _ in 0..<5000 { step() }
            statistics.recordSenderReport(ntpTimestamp: NTPTimestamp(seconds: 10, fraction: 0), arrivedAt: NTPTimestamp(seconds: 20, fraction: 0))
            return statistics.makeReportBlock(at: NTPTimestamp(seconds: 21, fraction: 0))
        }
        #expect(allocations == 0)
        #expect(block != nil && block!.fractionLost > 0)
        #expect(statistics.duplicatePackets > 0)
    }

    @Test func burstGapTrackingAllocatesNothing() {
        var tracker = BurstGapTracker()
        var random = SeededGenerator(seed: 8)
        var sequence: UInt16 = 65_400
        func step() {
            sequence &+= UInt16.random(in: 0...9, using: &random) == 0 ? 3 : 1  // some loss
            tracker.record(sequenceNumber: sequence, discarded: UInt16.random(in: 0...49, using: &random) == 0)
        }
        for _ in 0..<10 { step() }
        let (density, allocations) = AllocationCounter.measure {
            for _ in 0..<5_000 { step() }
            let statistics = tracker.statistics  // a report's snapshot, undecided packets decided
            return statistics.burstDensity + statistics.gapDensity + statistics.burstRatio + statistics.meanGapLength
        }
        #expect(allocations == 0)
        #expect(density > 1)
    }
}
