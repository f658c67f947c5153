// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

/// The error thrown when parsing `bytes` as RTCP, or nil if it parses.
func rtcpError(_ bytes: [UInt8], allowReducedSize: Bool = false) -> RTCPParseError? {
    do throws(RTCPParseError) {
        _ = try RTCPCompoundPacket(parsing: bytes, allowReducedSize: allowReducedSize)
        return nil
    } catch {
        return error
    }
}

@Suite("RTCP")
struct RTCPTests {
    static let block = RTCPReportBlock(
        ssrc: 0x2222_2222, fractionLost: 25, cumulativeLost: -3, extendedHighestSequence: 0x0001_0005,
        jitter: 42, lastSenderReport: 0xB705_2000, delaySinceLastSenderReport: 0x0005_4000)

    static let compound = RTCPCompoundPacket(packets: [
        .senderReport(
            RTCPSenderReport(
                ssrc: 0x1111_1111, ntpTimestamp: NTPTimestamp(seconds: 3_900_000_000, fraction: 0x8000_0000),
                rtpTimestamp: 123_456, packetCount: 500, octetCount: 40_000, reportBlocks: [block])),
        .sourceDescription(
            RTCPSourceDescription(chunks: [
                .init(
                    source: 0x1111_1111,
                    items: [.init(type: .canonicalName, text: "alice@example.org"), .init(type: .tool, text: "VoiceEngine")]),
                .init(source: 0x3333_3333, items: [.init(type: .canonicalName, text: "bob")]),
            ])),
        .bye(RTCPBye(sources: [0x1111_1111, 0x3333_3333], reason: "call ended")),
    ])

    @Test func compoundSRSourceDescriptionByeRoundTrips() throws {
        let bytes = try Self.compound.serialized()
        #expect(bytes.count == Self.compound.encodedLength)
        #expect(bytes.count % 4 == 0)
        // SR header: V=2, RC=1, PT=200, length = (4 + 24 + 24) / 4 - 1 = 12.
        #expect(Array(bytes.prefix(4)) == [0x81, 200, 0, 12])
        let parsed = try RTCPCompoundPacket(parsing: bytes)
        #expect(parsed == Self.compound)
        guard case .sourceDescription(let description) = parsed.packets[1] else {
            Issue.record("second packet is not SDES")
            return
        }
        #expect(description.chunks[0].canonicalName == "alice@example.org")
        #expect(parsed.packets.map(\.packetType) == [.senderReport, .sourceDescription, .bye])
    }

    @Test func receiverReportAndByeWithoutReasonRoundTrip() throws {
        let compound = RTCPCompoundPacket(packets: [
            .receiverReport(RTCPReceiverReport(ssrc: 9, reportBlocks: [Self.block, Self.block])),
            .bye(RTCPBye(sources: [9])),
            .opaque(RTCPOpaquePacket(packetType: .applicationDefined, count: 3, body: [0, 0, 0, 9, 65, 66, 67, 68])),
        ])
        let parsed = try RTCPCompoundPacket(parsing: try compound.serialized())
        #expect(parsed == compound)
    }

    @Test func reportBlockFieldsOnTheWire() throws {
        let compound = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: [Self.block]))])
        let bytes = try compound.serialized()
        // Fraction 25, cumulative −3 as 24-bit two's complement.
        #expect(Array(bytes[12..<16]) == [25, 0xFF, 0xFF, 0xFD])
    }

    @Test func cumulativeLostIsClampedTo24Bits() throws {
        var block = Self.block
        block.cumulativeLost = 10_000_000
        let compound = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: [block]))])
        let parsed = try RTCPCompoundPacket(parsing: try compound.serialized())
        guard case .receiverReport(let report) = parsed.packets[0] else {
            Issue.record("not an RR")
            return
        }
        #expect(report.reportBlocks[0].cumulativeLost == 0x7F_FFFF)
    }

    @Test func paddingOnTheLastPacketIsAccepted() throws {
        var bytes = try RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 5))]).serialized()
        bytes[0] |= 0x20
        bytes[3] += 1
        bytes += [0, 0, 0, 4]
        let parsed = try RTCPCompoundPacket(parsing: bytes)
        #expect(parsed.packets == [.receiverReport(RTCPReceiverReport(ssrc: 5))])
    }

    @Test func malformedCompoundPacketsThrowTypedErrors() throws {
        let valid = try Self.compound.serialized()
        let srLength = 52
        #expect(rtcpError([]) == .truncated(offset: 0))
        #expect(rtcpError(Array(valid.prefix(3))) == .truncated(offset: 0))
        #expect(rtcpError(Array(valid.prefix(srLength + 2))) == .truncated(offset: srLength))
        var badVersion = valid
        badVersion[srLength] = 0x42
        #expect(rtcpError(badVersion) == .badVersion(1, offset: srLength))
        // First packet SDES.
        let sdesFirst = Array(valid[srLength...])
        #expect(rtcpError(sdesFirst) == .firstPacketNotReport(.sourceDescription))
        #expect(rtcpError(sdesFirst, allowReducedSize: true) == nil)
        // Length past end.
        #expect(rtcpError(Array(valid.prefix(40))) == .lengthPastEnd(offset: 0, length: 52, available: 40))
        // Padding on a packet that is not last.
        var earlyPadding = valid
        earlyPadding[0] |= 0x20
        #expect(rtcpError(earlyPadding) == .paddingNotOnLastPacket(offset: 0))
        // Padding count zero / larger than the body.
        var rr = try RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 5))]).serialized()
        rr[0] |= 0x20
        rr[7] = 0
        #expect(rtcpError(rr) == .invalidPadding(offset: 0, paddingCount: 0))
        rr[7] = 5
        #expect(rtcpError(rr) == .invalidPadding(offset: 0, paddingCount: 5))
        // Report count larger than the length holds.
        var tooManyBlocks = valid
        tooManyBlocks[0] = 0x82
        #expect(rtcpError(tooManyBlocks) == .reportBlocksPastEnd(.senderReport, offset: 0))
        let shortRR: [UInt8] = [0x81, 201, 0, 1, 0, 0, 0, 1]
        #expect(rtcpError(shortRR) == .reportBlocksPastEnd(.receiverReport, offset: 0))
        // SDES item running past its packet; chunk without END.
        let rrEmpty: [UInt8] = [0x80, 201, 0, 1, 0, 0, 0, 1]
        #expect(rtcpError(rrEmpty + [0x81, 202, 0, 2, 0, 0, 0, 1, 1, 9, 65, 66]) == .malformedSourceDescription(offset: 8))
        #expect(rtcpError(rrEmpty + [0x81, 202, 0, 2, 0, 0, 0, 1, 1, 2, 65, 66]) == .malformedSourceDescription(offset: 8))
        #expect(rtcpError(rrEmpty + [0x82, 202, 0, 2, 0, 0, 0, 1, 1, 1, 65, 0]) == .malformedSourceDescription(offset: 8))
        // BYE with more sources than words, or a reason past the end.
        #expect(rtcpError(rrEmpty + [0x82, 203, 0, 1, 0, 0, 0, 1]) == .malformedBye(offset: 8))
        #expect(rtcpError(rrEmpty + [0x81, 203, 0, 2, 0, 0, 0, 1, 9, 65, 66, 67]) == .malformedBye(offset: 8))
    }

    @Test func rejectsWhatCannotBeWritten() {
        let tooMany = RTCPCompoundPacket(packets: [
            .receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: Array(repeating: Self.block, count: 32)))
        ])
        #expect(throws: RTCPBuildError.tooManyEntries(.receiverReport, count: 32)) { try tooMany.serialized() }
        let longItem = RTCPCompoundPacket(packets: [
            .sourceDescription(
                RTCPSourceDescription(chunks: [.init(source: 1, items: [.init(type: .note, value: Array(repeating: 65, count: 256))])]))
        ])
        #expect(throws: RTCPBuildError.itemTooLong(length: 256)) { try longItem.serialized() }
        let longReason = RTCPCompoundPacket(packets: [.bye(RTCPBye(sources: [1], reason: String(repeating: "x", count: 300)))])
        #expect(throws: RTCPBuildError.reasonTooLong(length: 300)) { try longReason.serialized() }
        let unaligned = RTCPCompoundPacket(packets: [.receiverReport(RTCPReceiverReport(ssrc: 1, profileExtension: [1, 2]))])
        #expect(throws: RTCPBuildError.notWordAligned(.receiverReport, length: 2)) { try unaligned.serialized() }
        var small = [UInt8](repeating: 0, count: 10)
        #expect(throws: RTCPBuildError.bufferTooSmall(required: Self.compound.encodedLength, available: 10)) {
            try small.withUnsafeMutableBytes { try Self.compound.write(into: $0) }
        }
    }

    @Test func roundTripTimeMatchesTheRFC3550Example() throws {
        let vector = try KeyValueVector("rtp/rfc3550-rtt.txt")
        var block = Self.block
        block.lastSenderReport = try vector.hex32("lsr")
        block.delaySinceLastSenderReport = try vector.hex32("dlsr")
        let arrival = try vector.hex32("arrival")
        #expect(block.roundTripTimeCompact(arrival: arrival) == (try vector.hex32("rtt")))
        let arrivalTime = NTPTimestamp(seconds: arrival >> 16, fraction: (arrival & 0xFFFF) << 16)
        #expect(block.roundTripTime(arrivedAt: arrivalTime) == (try vector.double("rtt_seconds")))
        block.lastSenderReport = 0
        #expect(block.roundTripTime(arrivedAt: arrivalTime) == nil)
        block.lastSenderReport = arrival  // clock skew: negative RTT is reported as 0
        #expect(block.roundTripTimeCompact(arrival: arrival) == 0)
    }

    @Test func ntpTimestampConversions() {
        let time = NTPTimestamp(secondsSince1900: 3_913_056_000.25)
        #expect(time.seconds == 3_913_056_000)
        #expect(time.fraction == 0x4000_0000)
        #expect(time.secondsSince1900 == 3_913_056_000.25)
        #expect(time.compact == (3_913_056_000 & 0xFFFF) << 16 | 0x4000)
        #expect(NTPTimestamp(rawValue: time.rawValue) == time)
        let unix = NTPTimestamp(unixTime: 0)
        #expect(unix.seconds == NTPTimestamp.unixEpochOffset && unix.fraction == 0)
        #expect(NTPTimestamp(unixTime: 1_700_000_000.5).unixTime == 1_700_000_000.5)
        #expect(NTPTimestamp.compact(fromSeconds: 5.25) == 0x0005_4000)
        #expect(NTPTimestamp.seconds(fromCompact: 0x0006_2000) == 6.125)
        #expect(NTPTimestamp(seconds: 1, fraction: 0) < NTPTimestamp(seconds: 1, fraction: 1))
        #expect(NTPTimestamp(secondsSince1900: -5) == NTPTimestamp(seconds: 0, fraction: 0))
    }
}
