// SPDX-License-Identifier: Apache-2.0
/// The RTP packets a sender emits for one DTMF key press (RFC 4733 §2.5.1): a first packet
/// with the marker bit, an update every packet time with a growing duration, then the end
/// packet sent three times — all with the same RTP timestamp (the event start) and
/// consecutive sequence numbers.
///
/// Packet `i` is due `i × packetTimeMs` after the key press and reports the duration up to
/// the end of its packet interval; the last update carries the full duration and the E bit,
/// and its two copies follow one packet time apart.
///
/// ```swift
/// let press = try TelephoneEventKeyPress(event: .digit5, durationMs: 100, packetTimeMs: 20,
///                                        timestamp: ts, firstSequenceNumber: seq)
/// for packet in press { schedule(packet, after: packet.sendOffsetMs) }
/// ```
public struct TelephoneEventKeyPress: RandomAccessCollection, Sendable, Hashable {
    /// One packet of the key press.
    public struct Packet: Sendable, Hashable {
        /// RTP sequence number.
        public let sequenceNumber: UInt16
        /// RTP timestamp: the event start, the same in every packet.
        public let timestamp: UInt32
        /// RTP marker bit: set on the first packet only.
        public let marker: Bool
        /// When to send it, in milliseconds after the key press.
        public let sendOffsetMs: Int
        /// The telephone-event payload.
        public let payload: TelephoneEvent
    }

    /// Times the end packet is sent.
    public static let endPacketCopies = 3

    /// The highest telephone-event clock rate accepted, in Hz. Real ones are 8–48 kHz; the
    /// bound keeps `durationMs × clockRate` (at most 3.6 × 10^12) far from overflow for any
    /// rate a peer's `a=rtpmap` may announce.
    public static let maximumClockRate = 1_000_000

    /// The key.
    public let event: DTMFEvent
    /// Volume, 0–63 (−dBm0).
    public let volume: Int
    /// Full duration in RTP timestamp units.
    public let durationTicks: Int
    /// Packet time in RTP timestamp units.
    public let packetTimeTicks: Int
    /// Packet time in milliseconds.
    public let packetTimeMs: Int
    /// RTP timestamp of the event start.
    public let timestamp: UInt32
    /// Sequence number of the first packet.
    public let firstSequenceNumber: UInt16
    /// Packets with distinct durations (the last is the first end packet).
    public let updateCount: Int

    /// The packets for pressing `event` for `durationMs`.
    /// - Parameters:
    ///   - event: the key.
    ///   - durationMs: how long the tone lasts (its duration must fit 16 bits of clock ticks:
    ///     up to about 8.19 s at 8 kHz).
    ///   - packetTimeMs: interval between packets (the stream's ptime).
    ///   - volume: 0–63 (−dBm0).
    ///   - clockRate: the telephone-event clock rate (8000 unless negotiated otherwise),
    ///     1…`maximumClockRate`.
    ///   - timestamp: RTP timestamp of the event start.
    ///   - firstSequenceNumber: sequence number of the first packet.
    /// - Throws: ``TelephoneEventError`` for an out-of-range parameter.
    public init(
        event: DTMFEvent,
        durationMs: Int,
        packetTimeMs: Int = 20,
        volume: Int = 10,
        clockRate: Int = 8000,
        timestamp: UInt32,
        firstSequenceNumber: UInt16
    ) throws(TelephoneEventError) {
        // Checked before any arithmetic: the rate may come from a peer's SDP.
        guard clockRate > 0, clockRate <= Self.maximumClockRate else { throw .invalidClockRate(clockRate) }
        guard volume >= 0 && volume <= 63 else { throw .invalidVolume(volume) }
        guard packetTimeMs > 0, packetTimeMs <= 10_000 else { throw .invalidPacketTime(packetTimeMs) }
        guard durationMs > 0, durationMs <= 3_600_000 else { throw .invalidDuration(durationMs) }
        let durationTicks = durationMs * clockRate / 1000
        guard durationTicks > 0 && durationTicks <= Int(UInt16.max) else { throw .invalidDuration(durationMs) }
        let packetTimeTicks = packetTimeMs * clockRate / 1000
        guard packetTimeTicks > 0 else { throw .invalidPacketTime(packetTimeMs) }
        self.event = event
        self.volume = volume
        self.durationTicks = durationTicks
        self.packetTimeTicks = packetTimeTicks
        self.packetTimeMs = packetTimeMs
        self.timestamp = timestamp
        self.firstSequenceNumber = firstSequenceNumber
        self.updateCount = (durationTicks + packetTimeTicks - 1) / packetTimeTicks
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// Update packets plus the two extra copies of the end packet.
    public var endIndex: Int { updateCount + Self.endPacketCopies - 1 }

    /// The packet at `index`.
    public subscript(index: Int) -> Packet {
        precondition(index >= 0 && index < endIndex, "key press packet index out of range")
        let isEnd = index >= updateCount - 1
        let duration = isEnd ? durationTicks : (index + 1) * packetTimeTicks
        // Fields were validated in init, so this cannot throw.
        let payload = try! TelephoneEvent(event: event, isEnd: isEnd, volume: volume, duration: UInt16(duration))
        return Packet(
            sequenceNumber: firstSequenceNumber &+ UInt16(truncatingIfNeeded: index),
            timestamp: timestamp,
            marker: index == 0,
            sendOffsetMs: index * packetTimeMs,
            payload: payload
        )
    }
}
