// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

@Suite("Receiver statistics")
struct RTPReceiverStatisticsTests {
    @Test func jitterMatchesTheRFC3550A8Example() throws {
        let vector = try KeyValueVector("rtp/rfc3550-a8-jitter.txt")
        let clockRate = try vector.integer("clock_rate")
        let step = try vector.integer("timestamp_step")
        let arrivals = try vector.integers("arrivals_ms")
        let expected = try vector.integers("jitter")
        #expect(arrivals.count == expected.count + 1)

        var statistics = RTPReceiverStatistics(ssrc: 1)
        var jitters: [Int] = []
        for (index, arrivalMs) in arrivals.enumerated() {
            statistics.record(
                sequenceNumber: UInt16(index), timestamp: UInt32(index * step),
                arrivalTime: UInt32(arrivalMs * clockRate / 1000), payloadBytes: 160)
            if index > 0 { jitters.append(Int(statistics.jitter)) }
        }
        #expect(jitters == expected)
    }

    @Test func jitterIgnoresTimestampWrapAndClockOrigin() {
        // Constant transit time across a timestamp wrap: jitter stays 0.
        var statistics = RTPReceiverStatistics(ssrc: 1, minSequential: 1)
        var timestamp: UInt32 = 4_294_960_000
        var arrival: UInt32 = 123_456
        for sequence in UInt16(0)..<100 {
            statistics.record(sequenceNumber: sequence, timestamp: timestamp, arrivalTime: arrival, payloadBytes: 10)
            timestamp &+= 960
            arrival &+= 960
        }
        #expect(statistics.jitter == 0)
    }

    @Test func fractionAndCumulativeLostWithLossAndDuplicates() throws {
        var statistics = RTPReceiverStatistics(ssrc: 0xABCD, minSequential: 1)
        func receive(_ sequence: UInt16) {
            statistics.record(
                sequenceNumber: sequence, timestamp: UInt32(sequence) * 160, arrivalTime: UInt32(sequence) * 160,
                payloadBytes: 20)
        }
        // Interval 1: 0...99 with 10 lost (every tenth from 5).
        for sequence in UInt16(0)...99 where sequence % 10 != 5 { receive(sequence) }
        let firstReport = statistics.makeReportBlock(at: NTPTimestamp(seconds: 100, fraction: 0))
        let first = try #require(firstReport)
        #expect(first.ssrc == 0xABCD)
        #expect(first.extendedHighestSequence == 99)
        #expect(first.cumulativeLost == 10)
        #expect(first.fractionLost == UInt8((10 << 8) / 100))  // 25
        #expect(first.lastSenderReport == 0 && first.delaySinceLastSenderReport == 0)

        // Interval 2: 100...199 all received, plus 20 duplicates: loss in the interval is
        // negative, so fraction 0; cumulative drops by 20.
        for sequence in UInt16(100)...199 { receive(sequence) }
        for sequence in UInt16(180)...199 { receive(sequence) }
        let secondReport = statistics.makeReportBlock(at: NTPTimestamp(seconds: 105, fraction: 0))
        let second = try #require(secondReport)
        #expect(second.fractionLost == 0)
        #expect(second.cumulativeLost == -10)
        #expect(statistics.duplicatePackets == 20)
        #expect(statistics.packetsReceived == 90 + 100 + 20)
        #expect(statistics.bytesReceived == 20 * (90 + 100 + 20))

        // Interval 3: half of 200...299 lost.
        for sequence in UInt16(200)...299 where sequence % 2 == 0 { receive(sequence) }
        let thirdReport = statistics.makeReportBlock(at: NTPTimestamp(seconds: 110, fraction: 0))
        let third = try #require(thirdReport)
        #expect(third.fractionLost == UInt8((49 << 8) / 99))  // 49 of 99 expected lost
        #expect(third.cumulativeLost == -10 + 50 - 1)  // 299 was lost but is beyond the highest (298)
        #expect(third.extendedHighestSequence == 298)

        // Nothing since: expected interval 0 gives fraction 0.
        let fourthReport = statistics.makeReportBlock(at: NTPTimestamp(seconds: 115, fraction: 0))
        let fourth = try #require(fourthReport)
        #expect(fourth.fractionLost == 0)
    }

    @Test func allLostIntervalReportsMaximumFraction() throws {
        var statistics = RTPReceiverStatistics(ssrc: 1, minSequential: 1)
        statistics.record(sequenceNumber: 0, timestamp: 0, arrivalTime: 0, payloadBytes: 1)
        _ = statistics.makeReportBlock(at: NTPTimestamp(seconds: 1, fraction: 0))
        statistics.record(sequenceNumber: 1000, timestamp: 0, arrivalTime: 0, payloadBytes: 1)
        let blockReport = statistics.makeReportBlock(at: NTPTimestamp(seconds: 2, fraction: 0))
        let block = try #require(blockReport)
        #expect(block.fractionLost == 255)  // 999 of 1000 lost: (999 << 8) / 1000
        #expect(block.cumulativeLost == 999)
    }

    @Test func noReportBlockBeforeTheSourceIsValid() {
        var statistics = RTPReceiverStatistics(ssrc: 1)
        statistics.record(sequenceNumber: 5, timestamp: 0, arrivalTime: 0, payloadBytes: 1)
        #expect(statistics.makeReportBlock(at: NTPTimestamp(seconds: 1, fraction: 0)) == nil)
        #expect(statistics.discardedPackets == 1)
    }

    @Test func reportBlockCarriesLSRAndDLSR() throws {
        var statistics = RTPReceiverStatistics(ssrc: 7, minSequential: 1)
        statistics.record(sequenceNumber: 1, timestamp: 0, arrivalTime: 0, payloadBytes: 1)
        let srTime = NTPTimestamp(seconds: 0xB705_2000 >> 16, fraction: (0xB705_2000 & 0xFFFF) << 16)
        let arrival = NTPTimestamp(secondsSince1900: 50_000)
        statistics.recordSenderReport(ntpTimestamp: srTime, arrivedAt: arrival)
        let blockReport = statistics.makeReportBlock(at: NTPTimestamp(secondsSince1900: 50_000 + 5.25))
        let block = try #require(blockReport)
        #expect(block.lastSenderReport == 0xB705_2000)
        #expect(block.delaySinceLastSenderReport == 0x0005_4000)
    }

    @Test func restartResetsCounts() throws {
        var statistics = RTPReceiverStatistics(ssrc: 1, minSequential: 1)
        for sequence in UInt16(0)..<10 {
            statistics.record(sequenceNumber: sequence, timestamp: 0, arrivalTime: 0, payloadBytes: 1)
        }
        statistics.record(sequenceNumber: 30_000, timestamp: 0, arrivalTime: 0, payloadBytes: 1)
        statistics.record(sequenceNumber: 30_001, timestamp: 0, arrivalTime: 0, payloadBytes: 1)
        #expect(statistics.restarts == 1)
        let blockReport = statistics.makeReportBlock(at: NTPTimestamp(seconds: 1, fraction: 0))
        let block = try #require(blockReport)
        #expect(block.extendedHighestSequence == 30_001)
        #expect(block.cumulativeLost == 0)
        #expect(block.fractionLost == 0)
        #expect(statistics.packetsReceived == 11)
    }

    @Test func recordsParsedPackets() throws {
        let bytes = RTPPacketViewTests.sample
        var statistics = RTPReceiverStatistics(ssrc: 0x0102_0304, minSequential: 1)
        let update = try withPacket(bytes) { statistics.record($0, arrivalTime: 0) }
        #expect(update == .inOrder(extendedSequence: 0x1234))
        #expect(statistics.bytesReceived == 3)
    }
}
