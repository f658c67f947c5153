// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

/// RTCP XR (RFC 3611): the packet's block framing, the VoIP Metrics block field by field on
/// the wire, unknown block types carried through, and malformed lengths refused with a typed
/// error.
@Suite("RTCP XR")
struct ExtendedReportTests {
    static let metrics = RTCPVoIPMetricsBlock(
        ssrc: 0x2222_2222, lossRate: 13, discardRate: 5, burstDensity: 140, gapDensity: 3,
        burstDurationMs: 120, gapDurationMs: 4_380, roundTripDelayMs: 78, endSystemDelayMs: 95,
        signalLevel: -18, noiseLevel: -62, residualEchoReturnLoss: 40, gapThreshold: 16,
        rFactor: 82, externalRFactor: nil, mosLQ: 41, mosCQ: 40,
        packetLossConcealment: .enhanced, jitterBufferAdaptivity: .adaptive, jitterBufferRate: 15,
        jitterBufferNominalMs: 60, jitterBufferMaximumMs: 140, jitterBufferAbsoluteMaximumMs: 1_000)

    /// The same block written out by hand from RFC 3611 §4.7's figure.
    static let metricsBytes: [UInt8] = [
        7, 0, 0, 8,                  // BT=7, reserved, block length 8 (9 words)
        0x22, 0x22, 0x22, 0x22,      // SSRC of source
        13, 5, 140, 3,               // loss rate, discard rate, burst density, gap density (1/256)
        0x00, 120, 0x11, 0x1C,       // burst duration 120 ms, gap duration 4380 ms
        0x00, 78, 0x00, 95,          // round trip delay, end system delay (ms)
        0xEE, 0xC2, 40, 16,          // signal −18 dBm0, noise −62 dBm0, RERL 40 dB, Gmin 16
        82, 127, 41, 40,             // R factor 82, ext. R unavailable, MOS-LQ 4.1, MOS-CQ 4.0
        0b10_11_1111, 0, 0x00, 60,   // RX config PLC=enhanced(10) JBA=adaptive(11) rate 15, reserved, JB nominal
        0x00, 140, 0x03, 0xE8,       // JB maximum 140 ms, JB abs max 1000 ms
    ]

    static let opaque = RTCPOpaqueReportBlock(blockType: 4, typeSpecific: 0, contents: [0xE1, 0x2A, 0, 0, 0x80, 0, 0, 0])  // an RRTR

    /// An RR, then an XR holding an RRTR and the VoIP Metrics block.
    static func compoundBytes() -> [UInt8] {
        let receiverReport: [UInt8] = [0x80, 201, 0, 1, 0x11, 0x11, 0x11, 0x11]
        let body = [0x11, 0x11, 0x11, 0x11] + [4, 0, 0, 2] + opaque.contents + metricsBytes
        return receiverReport + [0x80, 207, 0, UInt8(body.count / 4)] + body
    }

    @Test func handBuiltVoIPMetricsBytesParseToEveryField() throws {
        let parsed = try RTCPCompoundPacket(parsing: Self.compoundBytes())
        #expect(parsed.packets.map(\.packetType) == [.receiverReport, .extendedReport])
        guard case let .extendedReport(report) = parsed.packets[1] else {
            Issue.record("second packet is not an XR")
            return
        }
        #expect(report.ssrc == 0x1111_1111)
        #expect(report.blocks == [.opaque(Self.opaque), .voipMetrics(Self.metrics)])
        #expect(report.blocks.map(\.blockType) == [4, 7])
        let block = try #require(report.voipMetrics.first)
        #expect(block.lossFraction == 13.0 / 256)
        #expect(block.burstDensityFraction == 140.0 / 256)
        #expect(block.signalLevel == -18 && block.noiseLevel == -62)
        #expect(block.externalRFactor == nil)
        #expect(block.listeningQualityMOS == 4.1 && block.conversationalQualityMOS == 4.0)
        #expect(block.packetLossConcealment == .enhanced && block.jitterBufferAdaptivity == .adaptive)
        // And back to the same bytes.
        #expect(try parsed.serialized() == Self.compoundBytes())
    }

    @Test func everyRXConfigValueAndUnavailableFieldRoundTrips() throws {
        for concealment in RTCPVoIPMetricsBlock.PacketLossConcealment.allCases {
            for adaptivity in RTCPVoIPMetricsBlock.JitterBufferAdaptivity.allCases {
                var block = RTCPVoIPMetricsBlock(ssrc: 9, signalLevel: -127, noiseLevel: 126, residualEchoReturnLoss: 0, rFactor: 100,
                                                 externalRFactor: 0, mosLQ: 10, mosCQ: 50)
                block.packetLossConcealment = concealment
                block.jitterBufferAdaptivity = adaptivity
                block.jitterBufferRate = UInt8(concealment.rawValue * 4 + adaptivity.rawValue)
                let compound = RTCPCompoundPacket(packets: [
                    .receiverReport(RTCPReceiverReport(ssrc: 1)),
                    .extendedReport(RTCPExtendedReport(ssrc: 1, blocks: [.voipMetrics(block)])),
                ])
                #expect(try RTCPCompoundPacket(parsing: try compound.serialized()) == compound)
            }
        }
        // Defaults: every optional field unavailable (127 on the wire), Gmin 16.
        let empty = RTCPExtendedReport(ssrc: 1, blocks: [.voipMetrics(RTCPVoIPMetricsBlock(ssrc: 2))])
        let bytes = try RTCPCompoundPacket(packets: [.extendedReport(empty)]).serialized()
        #expect(Array(bytes[28..<36]) == [127, 127, 127, 16, 127, 127, 127, 127])
        #expect(bytes[0] == 0x80, "the XR header's count field is reserved: 0")
        // An XR with no blocks is just its SSRC.
        let bare = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 1)), .extendedReport(RTCPExtendedReport(ssrc: 1, blocks: []))])
        #expect(try RTCPCompoundPacket(parsing: try bare.serialized()) == bare)
    }

    @Test func fixedPointFractionsClampAndNeverTrap() {
        #expect(RTCPVoIPMetricsBlock.fixedPointFraction(0.5) == 128)
        #expect(RTCPVoIPMetricsBlock.fixedPointFraction(1) == 255)
        #expect(RTCPVoIPMetricsBlock.fixedPointFraction(12) == 255)
        #expect(RTCPVoIPMetricsBlock.fixedPointFraction(-1) == 0)
        #expect(RTCPVoIPMetricsBlock.fixedPointFraction(.nan) == 0)
        #expect(RTCPVoIPMetricsBlock.fixedPointFraction(.infinity) == 0)
        #expect(RTCPVoIPMetricsBlock.fixedPointFraction(0.05) == 12)
    }

    @Test func unknownBlockTypesAreSkippedAndKept() throws {
        // A block type nobody registered, with a type-specific byte, between two known ones.
        let strange = RTCPOpaqueReportBlock(blockType: 250, typeSpecific: 0xAB, contents: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        let report = RTCPExtendedReport(ssrc: 7, blocks: [.voipMetrics(Self.metrics), .opaque(strange), .voipMetrics(Self.metrics)])
        let compound = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 7)), .extendedReport(report)])
        let parsed = try RTCPCompoundPacket(parsing: try compound.serialized())
        #expect(parsed == compound)
        guard case let .extendedReport(again) = parsed.packets[1] else { Issue.record("no XR"); return }
        #expect(again.voipMetrics == [Self.metrics, Self.metrics])
    }

    @Test func truncatedBlocksAndLengthOverrunsAreTypedErrors() throws {
        let valid = Self.compoundBytes()
        let xrOffset = 8
        // Cut inside the VoIP Metrics block, header length fixed to match: the block's own
        // length now runs past its packet.
        var truncated = Array(valid.dropLast(8))
        truncated[xrOffset + 3] -= 2
        #expect(rtcpError(truncated) == .reportBlockPastEnd(offset: xrOffset, blockOffset: xrOffset + 20))
        // The RRTR claims more words than the packet has.
        var overrun = valid
        overrun[xrOffset + 11] = 200
        #expect(rtcpError(overrun) == .reportBlockPastEnd(offset: xrOffset, blockOffset: xrOffset + 8))
        // Fewer than 4 bytes left for a block header (the packet ends mid-header).
        let headerCut: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 1] + [0xA0, 207, 0, 2, 0, 0, 0, 1, 7, 0, 0, 2]
        #expect(rtcpError(headerCut) == .reportBlockPastEnd(offset: 8, blockOffset: 16))
        // An XR without its SSRC.
        #expect(rtcpError([0x80, 201, 0, 1, 0, 0, 0, 1, 0x80, 207, 0, 0]) == .malformedExtendedReport(offset: 8))
        // A VoIP Metrics block one word short or long.
        var short = valid
        short[xrOffset + 20 + 3] = 7
        short[xrOffset + 3] -= 1
        short.removeLast(4)
        #expect(rtcpError(short) == .invalidReportBlockLength(blockType: 7, length: 32, blockOffset: xrOffset + 20))
        var long = valid
        long[xrOffset + 20 + 3] = 9
        long[xrOffset + 3] += 1
        long += [0, 0, 0, 0]
        #expect(rtcpError(long) == .invalidReportBlockLength(blockType: 7, length: 40, blockOffset: xrOffset + 20))
        // Every prefix of the datagram is rejected or parsed, never a trap.
        for length in 0..<valid.count { _ = rtcpError(Array(valid.prefix(length)), allowReducedSize: true) }
    }

    @Test func refusesWhatCannotBeWritten() {
        var block = Self.metrics
        block.jitterBufferRate = 16
        let badRate = RTCPCompoundPacket(packets: [.extendedReport(RTCPExtendedReport(ssrc: 1, blocks: [.voipMetrics(block)]))])
        #expect(throws: RTCPBuildError.jitterBufferRateOutOfRange(16)) { try badRate.serialized() }
        let unaligned = RTCPCompoundPacket(packets: [
            .extendedReport(RTCPExtendedReport(ssrc: 1, blocks: [.opaque(RTCPOpaqueReportBlock(blockType: 9, typeSpecific: 0, contents: [1, 2, 3]))]))
        ])
        #expect(throws: RTCPBuildError.notWordAligned(.extendedReport, length: 3)) { try unaligned.serialized() }
    }
}
