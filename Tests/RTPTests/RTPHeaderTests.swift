// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

/// Writes `header` with `payload` and padding into a fresh array.
func writePacket(_ header: RTPHeader, payload: [UInt8] = [], paddingCount: Int = 0) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0xEE, count: 1500)
    let count = try buffer.withUnsafeMutableBytes { out in
        try payload.withUnsafeBytes { payloadBytes in
            try header.write(payload: payloadBytes, paddingCount: paddingCount, into: out)
        }
    }
    return Array(buffer.prefix(count))
}

@Suite("RTP header building")
struct RTPHeaderTests {
    @Test func writesTheSamplePacketByteForByte() throws {
        var ext = RTPHeaderExtension(form: .oneByte)
        try ext.append(id: 1, data: [0x55])
        try ext.append(id: 3, data: [0x01, 0x02])
        let header = RTPHeader(
            marker: true, payloadType: 111, sequenceNumber: 0x1234, timestamp: 0xDEAD_BEEF, ssrc: 0x0102_0304,
            csrcs: [0xAABB_CCDD, 0x1122_3344], headerExtension: ext)
        #expect(header.encodedLength == 32)
        let bytes = try writePacket(header, payload: [0x61, 0x62, 0x63], paddingCount: 3)
        #expect(bytes == RTPPacketViewTests.sample)
    }

    @Test func roundTripsWithCSRCsAndEveryExtensionForm() throws {
        var oneByte = RTPHeaderExtension(form: .oneByte)
        try oneByte.append(id: 1, data: CollectionOfOne(0x80 | 42))
        try oneByte.append(id: 14, data: [UInt8](repeating: 7, count: 16))
        var twoByte = RTPHeaderExtension(form: .twoByte(appBits: 3))
        try twoByte.append(id: 255, data: [])
        try twoByte.append(id: 16, data: [UInt8](0..<200))
        var generic = RTPHeaderExtension(form: .generic(profile: 0x1234))
        try generic.appendData([1, 2, 3, 4, 5, 6, 7, 8])

        for headerExtension in [nil, oneByte, twoByte, generic] {
            for csrcCount in [0, 1, 15] {
                let csrcs = try RTPCSRCList((0..<UInt32(csrcCount)).map { 0x1000_0000 + $0 })
                let header = RTPHeader(
                    marker: csrcCount == 1, payloadType: 96, sequenceNumber: 65_535, timestamp: 4_294_967_295,
                    ssrc: 0xCAFE_BABE, csrcs: csrcs, headerExtension: headerExtension)
                let payload: [UInt8] = [9, 8, 7, 6, 5]
                let bytes = try writePacket(header, payload: payload, paddingCount: csrcCount == 15 ? 7 : 0)
                try withPacket(bytes) { packet in
                    let copy = try RTPHeader(packet)
                    #expect(copy == header)
                    #expect(Array(packet.payload) == payload)
                    #expect(packet.headerLength == header.encodedLength)
                    #expect(packet.csrcCount == csrcCount)
                }
            }
        }
    }

    @Test func parsedExtensionElementsMatchWhatWasBuilt() throws {
        var ext = RTPHeaderExtension(form: .twoByte(appBits: 0))
        try ext.append(id: 1, data: [0xAA])
        try ext.append(id: 2, data: [])
        try ext.append(id: 3, data: [0xBB, 0xCC, 0xDD])
        let bytes = try writePacket(RTPHeader(payloadType: 0, sequenceNumber: 1, timestamp: 2, ssrc: 3, headerExtension: ext))
        try withPacket(bytes) { packet in
            let elements = try #require(packet.headerExtension).elements.map { ($0.id, Array($0.data)) }
            #expect(elements.map(\.0) == [1, 2, 3])
            #expect(elements.map(\.1) == [[0xAA], [], [0xBB, 0xCC, 0xDD]])
        }
    }

    @Test func rejectsWhatCannotBeWritten() throws {
        let header = RTPHeader(payloadType: 0, sequenceNumber: 0, timestamp: 0, ssrc: 0)
        var small = [UInt8](repeating: 0, count: 11)
        #expect(throws: RTPBuildError.bufferTooSmall(required: 12, available: 11)) {
            try small.withUnsafeMutableBytes { try header.write(into: $0) }
        }
        #expect(throws: RTPBuildError.bufferTooSmall(required: 16, available: 12)) {
            try writePacketInto(count: 12, header, payload: [1, 2, 3, 4])
        }
        #expect(throws: RTPBuildError.invalidPaddingCount(256)) { try writePacket(header, paddingCount: 256) }
        var badType = header
        badType.payloadType = 128
        #expect(throws: RTPBuildError.invalidPayloadType(128)) { try writePacket(badType) }

        var csrcs = try RTPCSRCList(0..<15)
        #expect(throws: RTPBuildError.tooManyCSRCs) { try csrcs.append(15) }
        #expect(throws: RTPBuildError.tooManyCSRCs) { try RTPCSRCList(0..<16) }

        var oneByte = RTPHeaderExtension(form: .oneByte)
        #expect(throws: RTPBuildError.invalidExtensionElementID(0)) { try oneByte.append(id: 0, data: [1]) }
        #expect(throws: RTPBuildError.invalidExtensionElementID(15)) { try oneByte.append(id: 15, data: [1]) }
        #expect(throws: RTPBuildError.invalidExtensionElementLength(0)) { try oneByte.append(id: 1, data: []) }
        #expect(throws: RTPBuildError.invalidExtensionElementLength(17)) {
            try oneByte.append(id: 1, data: [UInt8](repeating: 0, count: 17))
        }
        #expect(throws: RTPBuildError.wrongExtensionForm) { try oneByte.appendData([1, 2, 3, 4]) }
        var twoByte = RTPHeaderExtension(form: .twoByte(appBits: 0))
        #expect(throws: RTPBuildError.invalidExtensionElementLength(256)) {
            try twoByte.append(id: 1, data: [UInt8](repeating: 0, count: 256))
        }
        try twoByte.append(id: 1, data: [UInt8](repeating: 0, count: 250))
        #expect(throws: RTPBuildError.extensionTooLarge(256 + 3)) {
            try twoByte.append(id: 2, data: [UInt8](repeating: 0, count: 5))
        }
        var generic = RTPHeaderExtension(form: .generic(profile: 1))
        #expect(throws: RTPBuildError.wrongExtensionForm) { try generic.append(id: 1, data: [1]) }
    }

    @Test func headerOnlyWriteLeavesPaddingBitClear() throws {
        let header = RTPHeader(payloadType: 8, sequenceNumber: 7, timestamp: 6, ssrc: 5)
        var buffer = [UInt8](repeating: 0xFF, count: 12)
        let count = try buffer.withUnsafeMutableBytes { try header.write(into: $0) }
        #expect(count == 12)
        #expect(buffer == [0x80, 0x08, 0, 7, 0, 0, 0, 6, 0, 0, 0, 5])
    }

    private func writePacketInto(count: Int, _ header: RTPHeader, payload: [UInt8]) throws(RTPBuildError) {
        var buffer = [UInt8](repeating: 0, count: count)
        let result = buffer.withUnsafeMutableBytes { out in
            payload.withUnsafeBytes { bytes in
                Result { () throws(RTPBuildError) in try header.write(payload: bytes, into: out) }
            }
        }
        _ = try result.get()
    }
}
