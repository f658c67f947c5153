// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing
import TestSupport

/// `RTCPReportWriter` writes the bytes `RTCPCompoundPacket` writes for the same packets, with no
/// array built, refuses what cannot be written without writing it, and allocates nothing.
@Suite struct RTCPReportWriterTests {
    static func randomBlock(_ random: inout SeededGenerator) -> RTCPReportBlock? {
        guard Bool.random(using: &random) else { return nil }
        return RTCPReportBlock(ssrc: random.next32(), fractionLost: UInt8.random(in: 0...255, using: &random),
                               cumulativeLost: Int32.random(in: -8_388_608...8_388_607, using: &random),
                               extendedHighestSequence: random.next32(), jitter: random.next32(),
                               lastSenderReport: random.next32(), delaySinceLastSenderReport: random.next32())
    }

    static func randomText(_ random: inout SeededGenerator, maximum: Int) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789@.-é€")
        return String((0..<Int.random(in: 0...maximum, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
    }

    @Test func writesWhatTheCompoundPacketWrites() throws {
        var random = SeededGenerator(seed: 0x0BCD_5E11)
        var buffer = [UInt8](repeating: 0xEE, count: 1_500)
        for _ in 0..<2_000 {
            let ssrc = random.next32()
            let block = Self.randomBlock(&random)
            let cname = Self.randomText(&random, maximum: 60)
            var packets: [RTCPPacket] = []
            let written = try buffer.withUnsafeMutableBytes { bytes throws(RTCPBuildError) -> [UInt8] in
                var writer = RTCPReportWriter(into: bytes)
                if Bool.random(using: &random) {
                    let ntp = NTPTimestamp(rawValue: random.next())
                    let rtp = random.next32(), count = random.next32(), octets = random.next32()
                    try writer.senderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: count, octetCount: octets,
                                            reportBlock: block)
                    packets.append(.senderReport(RTCPSenderReport(ssrc: ssrc, ntpTimestamp: ntp, rtpTimestamp: rtp, packetCount: count,
                                                                  octetCount: octets, reportBlocks: block.map { [$0] } ?? [])))
                } else {
                    try writer.receiverReport(ssrc: ssrc, reportBlock: block)
                    packets.append(.receiverReport(RTCPReceiverReport(ssrc: ssrc, reportBlocks: block.map { [$0] } ?? [])))
                }
                try writer.canonicalName(cname, ssrc: ssrc)
                packets.append(.sourceDescription(RTCPSourceDescription(chunks: [.init(source: ssrc, items: [.init(type: .canonicalName, text: cname)])])))
                if Bool.random(using: &random) {
                    let metrics = RTCPVoIPMetricsBlock(ssrc: random.next32(), lossRate: UInt8.random(in: 0...255, using: &random),
                                                       burstDurationMs: UInt16.random(in: 0...65_535, using: &random),
                                                       signalLevel: Int8.random(in: -90...0, using: &random), rFactor: 93)
                    try writer.voipMetrics(metrics, ssrc: ssrc)
                    packets.append(.extendedReport(RTCPExtendedReport(ssrc: ssrc, blocks: [.voipMetrics(metrics)])))
                }
                if Bool.random(using: &random) {
                    let reason = Bool.random(using: &random) ? Self.randomText(&random, maximum: 40) : nil
                    try writer.bye(ssrc: ssrc, reason: reason)
                    packets.append(.bye(RTCPBye(sources: [ssrc], reason: reason)))
                }
                return Array(bytes[0..<writer.length])
            }
            let expected = try RTCPCompoundPacket(packets: packets).serialized()
            #expect(written == expected)
        }
    }

    @Test func whatCannotBeWrittenIsRefusedAndNothingIsWritten() throws {
        var buffer = [UInt8](repeating: 0xEE, count: 40)
        buffer.withUnsafeMutableBytes { bytes in
            var writer = RTCPReportWriter(into: bytes)
            #expect(throws: RTCPBuildError.itemTooLong(length: 256)) { try writer.canonicalName(String(repeating: "x", count: 256), ssrc: 1) }
            #expect(throws: RTCPBuildError.reasonTooLong(length: 300)) { try writer.bye(ssrc: 1, reason: String(repeating: "y", count: 300)) }
            #expect(throws: RTCPBuildError.jitterBufferRateOutOfRange(16)) {
                try writer.voipMetrics(RTCPVoIPMetricsBlock(ssrc: 2, jitterBufferRate: 16), ssrc: 1)
            }
            #expect(throws: RTCPBuildError.bufferTooSmall(required: 52, available: 40)) {
                try writer.senderReport(ssrc: 1, ntpTimestamp: NTPTimestamp(rawValue: 0), rtpTimestamp: 0, packetCount: 0, octetCount: 0,
                                        reportBlock: RTCPReportBlock(ssrc: 2, fractionLost: 0, cumulativeLost: 0, extendedHighestSequence: 0,
                                                                     jitter: 0, lastSenderReport: 0, delaySinceLastSenderReport: 0))
            }
            #expect(writer.length == 0)
        }
        #expect(buffer.allSatisfy { $0 == 0xEE }, "nothing written")
    }

    @Test func aReportAllocatesNothing() throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_500, alignment: 16)
        defer { buffer.deallocate() }
        let cname = "alice@example.org"
        let block = RTCPReportBlock(ssrc: 2, fractionLost: 3, cumulativeLost: 4, extendedHighestSequence: 5, jitter: 6,
                                    lastSenderReport: 7, delaySinceLastSenderReport: 8)
        let metrics = RTCPVoIPMetricsBlock(ssrc: 2, lossRate: 9, rFactor: 90)
        func report() throws(RTCPBuildError) -> Int {
            var writer = RTCPReportWriter(into: buffer)
            try writer.senderReport(ssrc: 1, ntpTimestamp: NTPTimestamp(rawValue: 42), rtpTimestamp: 1, packetCount: 2, octetCount: 3,
                                    reportBlock: block)
            try writer.canonicalName(cname, ssrc: 1)
            try writer.voipMetrics(metrics, ssrc: 1)
            try writer.bye(ssrc: 1, reason: "hung up")
            return writer.length
        }
        _ = try report()
        let (length, allocations) = try AllocationCounter.measure { try report() }
        #expect(length == 52 + 28 + 44 + 16)
        if AllocationCounter.isCounting { #expect(allocations == 0) }
    }
}

extension SeededGenerator {
    /// The next 32 random bits.
    mutating func next32() -> UInt32 { UInt32(truncatingIfNeeded: next()) }
}
