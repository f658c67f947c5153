// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing
import TestSupport

@Suite("Fuzz: no input crashes the parsers")
struct FuzzTests {
    /// Valid packets to mutate: every header feature appears in at least one.
    static func seedPackets() throws -> [[UInt8]] {
        var oneByte = RTPHeaderExtension(form: .oneByte)
        try oneByte.append(id: 1, data: [0x80])
        try oneByte.append(id: 5, data: [1, 2, 3])
        var twoByte = RTPHeaderExtension(form: .twoByte(appBits: 1))
        try twoByte.append(id: 9, data: [])
        try twoByte.append(id: 77, data: [4, 5, 6, 7, 8])
        var generic = RTPHeaderExtension(form: .generic(profile: 0x0101))
        try generic.appendData([1, 2, 3, 4])
        return [
            RTPPacketViewTests.sample,
            try writePacket(RTPHeader(payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3), payload: [1, 2, 3]),
            try writePacket(
                RTPHeader(payloadType: 96, sequenceNumber: 9, timestamp: 8, ssrc: 7, csrcs: [1, 2, 3], headerExtension: oneByte),
                payload: [9, 9], paddingCount: 2),
            try writePacket(
                RTPHeader(payloadType: 97, sequenceNumber: 9, timestamp: 8, ssrc: 7, headerExtension: twoByte), payload: [1]),
            try writePacket(RTPHeader(payloadType: 98, sequenceNumber: 9, timestamp: 8, ssrc: 7, headerExtension: generic)),
        ]
    }

    static func mutate(_ seed: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        var bytes = seed
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1 where !bytes.isEmpty:
                bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            case 2:
                bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            case 3:
                bytes += (0..<Int.random(in: 1...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            default:
                if bytes.count > 3 { bytes[bytes.count - 1] = UInt8.random(in: 0...255, using: &random) }
            }
        }
        return bytes
    }

    @Test func rtpParserSurvives100kRandomAndMutatedPackets() throws {
        var random = SeededGenerator(seed: 0x5EED_0001)
        let seeds = try Self.seedPackets()
        var parsed = 0
        var rejected = 0
        for round in 0..<100_000 {
            let bytes: [UInt8]
            if round % 2 == 0 {
                var fresh = (0..<Int.random(in: 0...64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                if !fresh.isEmpty && round % 4 == 0 { fresh[0] = 0x80 | (fresh[0] & 0x3F) }  // version 2
                bytes = fresh
            } else {
                bytes = Self.mutate(seeds[round % seeds.count], using: &random)
            }
            let ok = bytes.withUnsafeBytes { buffer -> Bool in
                guard let packet = try? RTPPacketView(buffer) else { return false }
                // Touch everything a receiver would read.
                var checksum = Int(packet.payloadType) + Int(packet.sequenceNumber) + Int(packet.timestamp & 0xFF)
                for index in 0..<packet.csrcCount { checksum &+= Int(packet.csrc(at: index) & 0xFF) }
                if let ext = packet.headerExtension {
                    for element in ext.elements { checksum &+= Int(element.id) + element.data.count }
                }
                checksum &+= packet.payload.reduce(0) { $0 &+ Int($1) }
                #expect(packet.payloadRange.lowerBound >= RTPPacketView.fixedHeaderLength)
                #expect(packet.payloadRange.upperBound <= bytes.count)
                // What parses must copy into a header that writes back and re-parses equal.
                if let header = try? RTPHeader(packet) {
                    let rewritten = try? writePacket(header, payload: Array(packet.payload))
                    let reparsed = rewritten.flatMap { try? withPacket($0) { try RTPHeader($0) } }
                    #expect(reparsed == header)
                }
                return checksum >= Int.min
            }
            if ok { parsed += 1 } else { rejected += 1 }
        }
        // Both paths were exercised.
        #expect(parsed > 10_000)
        #expect(rejected > 10_000)
    }

    @Test func rtcpParserSurvivesRandomAndMutatedDatagrams() throws {
        var random = SeededGenerator(seed: 0x5EED_0002)
        let seed = try RTCPTests.compound.serialized()
        let reduced = try RTCPCompoundPacket(packets: [
            .receiverReport(RTCPReceiverReport(ssrc: 1, reportBlocks: [RTCPTests.block])), .bye(RTCPBye(sources: [1])),
        ]).serialized()
        let extended = ExtendedReportTests.compoundBytes()
        var parsed = 0
        var parsedExtendedReports = 0
        for round in 0..<40_000 {
            let bytes: [UInt8]
            switch round % 4 {
            case 0: bytes = (0..<Int.random(in: 0...96, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            case 1: bytes = Self.mutate(seed, using: &random)
            case 2: bytes = Self.mutate(extended, using: &random)
            default: bytes = Self.mutate(reduced, using: &random)
            }
            if let compound = try? RTCPCompoundPacket(parsing: bytes, allowReducedSize: round % 2 == 0) {
                parsed += 1
                if compound.packets.contains(where: { $0.packetType == .extendedReport }) { parsedExtendedReports += 1 }
                // Whatever parses must serialise (or fail with a typed error), never trap, and
                // parse back the same (an XR's blocks decoded or kept opaque alike).
                if let again = try? compound.serialized() {
                    #expect(again.count == compound.encodedLength)
                    #expect((try? RTCPCompoundPacket(parsing: again, allowReducedSize: round % 2 == 0)) == compound)
                }
            }
        }
        #expect(parsed > 1_000)
        #expect(parsedExtendedReports > 500, "mutated XRs parsed: \(parsedExtendedReports)")
    }

    @Test func telephoneEventDecoderSurvivesAllEventAndFlagBytes() {
        for first in UInt8.min...UInt8.max {
            for second in stride(from: 0, through: 255, by: 5) {
                let payload = try? TelephoneEvent(decoding: [first, UInt8(second), 0x12, 0x34])
                #expect((payload != nil) == (first <= 15))
            }
        }
    }
}
