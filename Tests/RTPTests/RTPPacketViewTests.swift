// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

/// Parses `bytes` and hands the view to `body` (the view borrows the array's storage).
func withPacket<R>(_ bytes: [UInt8], _ body: (RTPPacketView) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { buffer in try body(try RTPPacketView(buffer)) }
}

/// The error thrown when parsing `bytes`, or nil if it parses.
func parseError(_ bytes: [UInt8]) -> RTPParseError? {
    bytes.withUnsafeBytes { buffer in
        do throws(RTPParseError) {
            _ = try RTPPacketView(buffer)
            return nil
        } catch {
            return error
        }
    }
}

@Suite("RTP packet view")
struct RTPPacketViewTests {
    /// A hand-assembled packet: V=2, P=1, X=1, CC=2, M=1, PT=111, seq 0x1234, ts 0xDEADBEEF,
    /// SSRC 0x01020304, CSRCs 0xAABBCCDD and 0x11223344, one-byte extension with element
    /// id 1 (1 byte 0x55) and id 3 (2 bytes 0x0102) plus one padding byte, payload 3 bytes,
    /// padding 3 bytes.
    static let sample: [UInt8] = [
        0xB2, 0xEF, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF, 0x01, 0x02, 0x03, 0x04,
        0xAA, 0xBB, 0xCC, 0xDD, 0x11, 0x22, 0x33, 0x44,
        0xBE, 0xDE, 0x00, 0x02, 0x10, 0x55, 0x31, 0x01, 0x02, 0x00, 0x00, 0x00,
        0x61, 0x62, 0x63,
        0x00, 0x00, 0x03,
    ]

    @Test func parsesEveryField() throws {
        try withPacket(Self.sample) { packet in
            #expect(packet.version == 2)
            #expect(packet.hasPadding)
            #expect(packet.hasExtension)
            #expect(packet.csrcCount == 2)
            #expect(packet.marker)
            #expect(packet.payloadType == 111)
            #expect(packet.sequenceNumber == 0x1234)
            #expect(packet.timestamp == 0xDEAD_BEEF)
            #expect(packet.ssrc == 0x0102_0304)
            #expect(packet.csrc(at: 0) == 0xAABB_CCDD)
            #expect(packet.csrc(at: 1) == 0x1122_3344)
            #expect(packet.headerLength == 32)
            #expect(packet.paddingCount == 3)
            #expect(packet.payloadRange == 32..<35)
            #expect(Array(packet.payload) == [0x61, 0x62, 0x63])
            let ext = try #require(packet.headerExtension)
            #expect(ext.form == .oneByte)
            #expect(ext.data.count == 8)
            let elements = ext.elements.map { ($0.id, Array($0.data)) }
            #expect(elements.count == 2)
            #expect(elements[0].0 == 1 && elements[0].1 == [0x55])
            #expect(elements[1].0 == 3 && elements[1].1 == [0x01, 0x02])
            #expect(ext.element(id: 3).map(Array.init) == [0x01, 0x02])
            #expect(ext.element(id: 2) == nil)
        }
    }

    @Test func minimalPacketHasEmptyPayload() throws {
        let bytes: [UInt8] = [0x80, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]
        try withPacket(bytes) { packet in
            #expect(!packet.hasPadding && !packet.hasExtension && !packet.marker)
            #expect(packet.payload.isEmpty)
            #expect(packet.headerExtension == nil)
        }
    }

    @Test func twoByteExtensionElements() throws {
        // Two-byte form, app bits 5: id 7 with 0 bytes, padding, id 200 with 3 bytes.
        let bytes: [UInt8] = [
            0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
            0x10, 0x05, 0x00, 0x02, 0x07, 0x00, 0x00, 0xC8, 0x03, 0x0A, 0x0B, 0x0C,
            0xFF,
        ]
        try withPacket(bytes) { packet in
            let ext = try #require(packet.headerExtension)
            #expect(ext.form == .twoByte(appBits: 5))
            let elements = ext.elements.map { ($0.id, Array($0.data)) }
            #expect(elements.count == 2)
            #expect(elements[0].0 == 7 && elements[0].1.isEmpty)
            #expect(elements[1].0 == 200 && elements[1].1 == [0x0A, 0x0B, 0x0C])
            #expect(Array(packet.payload) == [0xFF])
        }
    }

    @Test func oneByteIdentifier15StopsIteration() throws {
        let bytes: [UInt8] = [
            0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
            0xBE, 0xDE, 0x00, 0x01, 0x20, 0x09, 0xF3, 0x44,
        ]
        try withPacket(bytes) { packet in
            let ids = try #require(packet.headerExtension).elements.map(\.id)
            #expect(ids == [2])
        }
    }

    @Test func genericExtensionHasNoElements() throws {
        let bytes: [UInt8] = [
            0x90, 0x60, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
            0xAB, 0xCD, 0x00, 0x01, 0xFF, 0xFF, 0xFF, 0xFF,
        ]
        try withPacket(bytes) { packet in
            let ext = try #require(packet.headerExtension)
            #expect(ext.form == .generic(profile: 0xABCD))
            #expect(Array(ext.data) == [0xFF, 0xFF, 0xFF, 0xFF])
            #expect(ext.elements.map(\.id).isEmpty)
        }
    }

    @Test func malformedPacketsThrowTypedErrors() {
        let base: [UInt8] = [0x80, 0x00, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]
        #expect(parseError([]) == .tooShort(length: 0))
        #expect(parseError(Array(base.prefix(11))) == .tooShort(length: 11))
        #expect(parseError([0x40] + base.dropFirst()) == .badVersion(1))
        #expect(parseError([0x00] + base.dropFirst()) == .badVersion(0))
        #expect(parseError([0x82] + base.dropFirst() + [1, 2, 3, 4]) == .csrcListPastEnd(csrcCount: 2, length: 16))
        // Extension header cut off, then extension words past the end.
        #expect(parseError([0x90] + base.dropFirst() + [0xBE, 0xDE]) == .extensionPastEnd(requiredLength: 16, length: 14))
        #expect(
            parseError([0x90] + base.dropFirst() + [0xBE, 0xDE, 0x00, 0x02, 0x10, 0x00, 0x00, 0x00])
                == .extensionPastEnd(requiredLength: 24, length: 20))
        // Padding: count zero; count beyond the payload; padding bit with nothing after header.
        #expect(parseError([0xA0] + base.dropFirst() + [1, 2, 0]) == .zeroPaddingCount)
        #expect(parseError([0xA0] + base.dropFirst() + [1, 2, 9]) == .paddingLongerThanPayload(paddingCount: 9, available: 3))
        #expect(parseError([0xA0] + base.dropFirst()) == .paddingLongerThanPayload(paddingCount: 0, available: 0))
        // One-byte element announcing 4 bytes with 3 left; two-byte element missing its length.
        #expect(
            parseError([0x90] + base.dropFirst() + [0xBE, 0xDE, 0x00, 0x01, 0x13, 0x01, 0x02, 0x03])
                == .malformedExtensionElement(offset: 0))
        #expect(
            parseError([0x90] + base.dropFirst() + [0x10, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00, 0x05])
                == .malformedExtensionElement(offset: 3))
    }
}
