// SPDX-License-Identifier: Apache-2.0
/// An RFC 4733 telephone-event payload (§2.3) for a DTMF key:
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// |     event     |E|R| volume    |          duration             |
/// ```
///
/// Fields are validated on creation, so encoding cannot fail except for a short buffer.
public struct TelephoneEvent: Sendable, Hashable {
    /// The key.
    public let event: DTMFEvent
    /// The E bit: this is (one of the copies of) the event's last packet.
    public let isEnd: Bool
    /// Power level of the tone, 0–63, in −dBm0 (larger is quieter).
    public let volume: UInt8
    /// Duration of the event so far, in RTP timestamp units, measured from the packet's RTP
    /// timestamp (the event start).
    public let duration: UInt16

    /// Bytes of one encoded payload.
    public static let encodedLength = 4

    /// A payload with the given fields.
    /// - Throws: ``TelephoneEventError/invalidVolume(_:)`` if `volume` is above 63.
    public init(event: DTMFEvent, isEnd: Bool, volume: Int, duration: UInt16) throws(TelephoneEventError) {
        guard volume >= 0 && volume <= 63 else { throw .invalidVolume(volume) }
        self.event = event
        self.isEnd = isEnd
        self.volume = UInt8(volume)
        self.duration = duration
    }

    /// Decodes the first 4 bytes of `bytes` (the R bit is ignored, as §2.3.3 requires).
    /// - Throws: ``TelephoneEventError/tooShort(length:)`` or
    ///   ``TelephoneEventError/unsupportedEvent(_:)`` for event codes above 15.
    public init(decoding bytes: UnsafeRawBufferPointer) throws(TelephoneEventError) {
        guard bytes.count >= Self.encodedLength else { throw .tooShort(length: bytes.count) }
        guard let event = DTMFEvent(rawValue: bytes[0]) else { throw .unsupportedEvent(bytes[0]) }
        self.event = event
        self.isEnd = bytes[1] & 0x80 != 0
        self.volume = bytes[1] & 0x3F
        self.duration = bytes.bigEndianUInt16(at: 2)
    }

    /// Decodes the first 4 bytes of an array (see the buffer overload).
    public init(decoding bytes: [UInt8]) throws(TelephoneEventError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(TelephoneEventError) in try TelephoneEvent(decoding: buffer) }
        }
        self = try result.get()
    }

    /// Writes the 4-byte payload at the start of `buffer`.
    /// - Returns: 4.
    /// - Throws: ``TelephoneEventError/tooShort(length:)`` if `buffer` is smaller.
    public func encode(into buffer: UnsafeMutableRawBufferPointer) throws(TelephoneEventError) -> Int {
        guard buffer.count >= Self.encodedLength else { throw .tooShort(length: buffer.count) }
        buffer[0] = event.rawValue
        buffer[1] = (isEnd ? 0x80 : 0) | volume
        buffer.storeBigEndian(duration, at: 2)
        return Self.encodedLength
    }

    /// The 4-byte payload as an array.
    public var encoded: [UInt8] {
        [event.rawValue, (isEnd ? 0x80 : 0) | volume, UInt8(duration >> 8), UInt8(truncatingIfNeeded: duration)]
    }
}
