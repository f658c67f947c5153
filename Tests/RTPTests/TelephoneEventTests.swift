// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

@Suite("RFC 4733 telephone events")
struct TelephoneEventTests {
    @Test func encodesAndDecodesTheRFC4733Example() throws {
        let vector = try KeyValueVector("rtp/rfc4733-telephone-event.txt")
        let expected = try vector.bytes("payload")
        let event = try #require(DTMFEvent(rawValue: UInt8(try vector.integer("event"))))
        let payload = try TelephoneEvent(
            event: event, isEnd: try vector.integer("end") == 1, volume: try vector.integer("volume"),
            duration: UInt16(try vector.integer("duration")))
        #expect(payload.encoded == expected)
        var buffer = [UInt8](repeating: 0, count: 4)
        let written = try buffer.withUnsafeMutableBytes { try payload.encode(into: $0) }
        #expect(written == 4 && buffer == expected)
        #expect(try TelephoneEvent(decoding: expected) == payload)
    }

    @Test func digitMapping() {
        #expect(DTMFEvent.allCases.map(\.character) == Array("0123456789*#ABCD"))
        #expect(DTMFEvent("*") == .star)
        #expect(DTMFEvent("#") == .pound)
        #expect(DTMFEvent("d") == .d)
        #expect(DTMFEvent("7")?.rawValue == 7)
        #expect(DTMFEvent("E") == nil)
        #expect(DTMFEvent.pound.rawValue == 11)
        #expect(DTMFEvent.a.rawValue == 12)
    }

    @Test func rejectsBadInput() {
        #expect(throws: TelephoneEventError.tooShort(length: 3)) { try TelephoneEvent(decoding: [5, 0x8A, 3]) }
        #expect(throws: TelephoneEventError.unsupportedEvent(16)) { try TelephoneEvent(decoding: [16, 0, 0, 1]) }
        #expect(throws: TelephoneEventError.invalidVolume(64)) {
            try TelephoneEvent(event: .digit1, isEnd: false, volume: 64, duration: 1)
        }
        #expect(throws: TelephoneEventError.invalidVolume(-1)) {
            try TelephoneEvent(event: .digit1, isEnd: false, volume: -1, duration: 1)
        }
        var small = [UInt8](repeating: 0, count: 3)
        #expect(throws: TelephoneEventError.tooShort(length: 3)) {
            try small.withUnsafeMutableBytes { try TelephoneEvent(event: .digit1, isEnd: false, volume: 0, duration: 1).encode(into: $0) }
        }
        #expect(throws: TelephoneEventError.invalidDuration(9000)) {
            try TelephoneEventKeyPress(event: .digit1, durationMs: 9000, timestamp: 0, firstSequenceNumber: 0)
        }
        #expect(throws: TelephoneEventError.invalidDuration(0)) {
            try TelephoneEventKeyPress(event: .digit1, durationMs: 0, timestamp: 0, firstSequenceNumber: 0)
        }
        #expect(throws: TelephoneEventError.invalidPacketTime(0)) {
            try TelephoneEventKeyPress(event: .digit1, durationMs: 100, packetTimeMs: 0, timestamp: 0, firstSequenceNumber: 0)
        }
        #expect(throws: TelephoneEventError.invalidClockRate(0)) {
            try TelephoneEventKeyPress(event: .digit1, durationMs: 100, clockRate: 0, timestamp: 0, firstSequenceNumber: 0)
        }
    }

    @Test func decodingIgnoresTheReservedBit() throws {
        let payload = try TelephoneEvent(decoding: [11, 0x40 | 0x3F, 0, 160])
        #expect(payload.event == .pound && !payload.isEnd && payload.volume == 63 && payload.duration == 160)
    }

    @Test func keyPressPacketSequence() throws {
        let press = try TelephoneEventKeyPress(
            event: .digit5, durationMs: 100, packetTimeMs: 20, volume: 10, timestamp: 48_000, firstSequenceNumber: 65_534)
        #expect(press.count == 7)  // 5 updates, the last an end packet, then 2 more end packets
        #expect(press.map(\.payload.duration) == [160, 320, 480, 640, 800, 800, 800])
        #expect(press.map(\.payload.isEnd) == [false, false, false, false, true, true, true])
        #expect(press.map(\.marker) == [true, false, false, false, false, false, false])
        #expect(press.map(\.sequenceNumber) == [65_534, 65_535, 0, 1, 2, 3, 4])
        #expect(press.allSatisfy { $0.timestamp == 48_000 && $0.payload.event == .digit5 && $0.payload.volume == 10 })
        #expect(press.map(\.sendOffsetMs) == [0, 20, 40, 60, 80, 100, 120])
        // The final packet is the RFC 4733 example payload.
        #expect(press[press.count - 1].payload.encoded == [0x05, 0x8A, 0x03, 0x20])
    }

    @Test func shortPressAndPartialLastInterval() throws {
        let short = try TelephoneEventKeyPress(event: .star, durationMs: 10, packetTimeMs: 20, timestamp: 0, firstSequenceNumber: 0)
        #expect(short.map(\.payload.duration) == [80, 80, 80])
        #expect(short.map(\.payload.isEnd) == [true, true, true])
        #expect(short.map(\.marker) == [true, false, false])
        let partial = try TelephoneEventKeyPress(
            event: .a, durationMs: 50, packetTimeMs: 20, clockRate: 16_000, timestamp: 0, firstSequenceNumber: 0)
        #expect(partial.map(\.payload.duration) == [320, 640, 800, 800, 800])
    }
}
