// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

/// Issue 16, "Hardening": inputs that used to trap in the RTP module. Each test names its row
/// of the "Bad input" table (docs/bad-input.md).
@Suite("Bad input: RTP")
struct BadInputTests {
    /// Row 8: the distance between 64-bit values more than half the circle apart used to trap
    /// converting the wrapping difference to `Int64`.
    @Test func serialDistanceOfSixtyFourBitValuesNeverTraps() {
        #expect(SerialNumberArithmetic.distance(from: UInt64(0), to: 1 << 63 + 1) == Int64.min + 1)
        #expect(SerialNumberArithmetic.distance(from: UInt64(0), to: 1 << 63) == Int64.min)
        #expect(SerialNumberArithmetic.distance(from: UInt64(0), to: UInt64.max) == -1)
        #expect(SerialNumberArithmetic.distance(from: UInt64.max, to: 0) == 1)
        #expect(SerialNumberArithmetic.distance(from: UInt64(5), to: 1 << 62) == (1 << 62) - 5)
        #expect(SerialNumberArithmetic.isNewer(UInt64(0), than: UInt64.max))
        // Narrower types keep their circle: half of it is negative.
        #expect(SerialNumberArithmetic.distance(from: UInt8(0), to: 128) == -128)
        #expect(SerialNumberArithmetic.distance(from: UInt8(250), to: 4) == 10)
        #expect(SerialNumberArithmetic.distance(from: UInt32(0), to: UInt32.max) == -1)
        // Wider than Int64: saturates instead of trapping.
        #expect(SerialNumberArithmetic.distance(from: UInt128(0), to: 7) == 7)
        #expect(SerialNumberArithmetic.distance(from: UInt128(7), to: 0) == -7)
        #expect(SerialNumberArithmetic.distance(from: UInt128(0), to: UInt128(1) << 100) == Int64.max)
        #expect(SerialNumberArithmetic.distance(from: UInt128(0), to: UInt128(1) << 127) == Int64.min)
        #expect(SerialNumberArithmetic.distance(from: UInt128(0), to: UInt128.max) == -1)
    }
}

extension BadInputTests {
    /// Row 4: characters whose upper case is more than one character ("ß" → "SS", "ﬁ" →
    /// "FI", and about 80 other scalars) used to trap building a `Character` from it. Every
    /// Unicode scalar, and a few multi-scalar graphemes, now map to a key or to nil.
    @Test func dtmfEventFromAnyCharacterNeverTraps() {
        #expect(DTMFEvent("ß") == nil)
        #expect(DTMFEvent("ﬁ") == nil)
        #expect(DTMFEvent("\u{0149}") == nil)  // ŉ → ʼN
        #expect(DTMFEvent("1\u{0301}") == nil)  // 1 with a combining accent: one grapheme, not a key
        #expect(DTMFEvent("\r\n") == nil)
        var keys: [Character: DTMFEvent] = [:]
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), let event = DTMFEvent(Character(scalar)) else { continue }
            keys[Character(scalar)] = event
        }
        #expect(keys.count == 20)  // 0–9 * # A–D a–d
        #expect(keys["a"] == .a && keys["D"] == .d && keys["#"] == .pound && keys["0"] == .digit0)
    }
}

extension BadInputTests {
    /// Row 5: a clock rate of 10^17 (as a peer's `a=rtpmap:… telephone-event/100000000000000000`
    /// would give) used to overflow `durationMs × clockRate`; now it is refused, typed.
    @Test func keyPressWithAnAbsurdClockRateIsRefused() throws {
        for rate in [100_000_000_000_000_000, Int.max, TelephoneEventKeyPress.maximumClockRate + 1, -8_000] {
            #expect(throws: TelephoneEventError.invalidClockRate(rate)) {
                try TelephoneEventKeyPress(event: .digit1, durationMs: 3_600_000, packetTimeMs: 10_000, clockRate: rate,
                                           timestamp: 0, firstSequenceNumber: 0)
            }
        }
        // The highest accepted rate computes without overflow (and the duration, too long for
        // 16 bits at that rate, is refused as such).
        #expect(throws: TelephoneEventError.invalidDuration(3_600_000)) {
            try TelephoneEventKeyPress(event: .digit1, durationMs: 3_600_000, packetTimeMs: 10_000,
                                       clockRate: TelephoneEventKeyPress.maximumClockRate, timestamp: 0, firstSequenceNumber: 0)
        }
        let press = try TelephoneEventKeyPress(event: .digit1, durationMs: 50, clockRate: TelephoneEventKeyPress.maximumClockRate,
                                               timestamp: 0, firstSequenceNumber: 0)
        #expect(press.durationTicks == 50_000)
    }
}

extension BadInputTests {
    /// Found by the `rtcp` fuzz target: a BYE reason of bytes that are not UTF-8 decoded to
    /// replacement characters, three UTF-8 bytes each, and the parsed packet could not be
    /// written back (`reasonTooLong`). Now the reason is cut to what fits.
    @Test func byeReasonOfInvalidUTF8ParsesToWhatCanBeWrittenBack() throws {
        let reason = [UInt8](repeating: 0x9E, count: 200)
        let bye: [UInt8] = [0x81, 203, 0, 52, 0, 0, 0, 1, 200] + reason + [0, 0, 0]
        let compound = try RTCPCompoundPacket(parsing: [0x80, 201, 0, 1, 0, 0, 0, 1] + bye)
        guard case let .bye(parsed) = compound.packets[1] else {
            Issue.record("no BYE")
            return
        }
        #expect(parsed.reason == String(repeating: "\u{FFFD}", count: 85))
        #expect(try RTCPCompoundPacket(parsing: try compound.serialized()) == compound)
    }
}
