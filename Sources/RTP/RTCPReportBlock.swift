// SPDX-License-Identifier: Apache-2.0
/// One reception report block of an RTCP SR or RR (RFC 3550 §6.4.1): what a receiver
/// observed about one source.
public struct RTCPReportBlock: Sendable, Hashable {
    /// The source this block reports on.
    public var ssrc: UInt32
    /// Fraction of packets lost since the previous report, in 1/256 units.
    public var fractionLost: UInt8
    /// Cumulative packets lost (expected − received); a signed 24-bit value on the wire,
    /// negative when duplicates arrived. Clamped to −8388608…8388607 when written.
    public var cumulativeLost: Int32
    /// Extended highest sequence number received (cycles in the high 16 bits).
    public var extendedHighestSequence: UInt32
    /// Interarrival jitter in RTP timestamp units.
    public var jitter: UInt32
    /// Middle 32 bits of the NTP timestamp of the last SR from this source (LSR); 0 if none.
    public var lastSenderReport: UInt32
    /// Delay between receiving that SR and sending this block, in 1/65536 s (DLSR); 0 if none.
    public var delaySinceLastSenderReport: UInt32

    /// Bytes a block occupies on the wire.
    public static let encodedLength = 24

    /// A block with the given fields.
    public init(
        ssrc: UInt32,
        fractionLost: UInt8,
        cumulativeLost: Int32,
        extendedHighestSequence: UInt32,
        jitter: UInt32,
        lastSenderReport: UInt32,
        delaySinceLastSenderReport: UInt32
    ) {
        self.ssrc = ssrc
        self.fractionLost = fractionLost
        self.cumulativeLost = cumulativeLost
        self.extendedHighestSequence = extendedHighestSequence
        self.jitter = jitter
        self.lastSenderReport = lastSenderReport
        self.delaySinceLastSenderReport = delaySinceLastSenderReport
    }

    /// Fraction lost as a value in 0…1.
    public var fractionLostRatio: Double { Double(fractionLost) / 256 }

    /// Round-trip time in compact NTP units (1/65536 s), RFC 3550 §6.4.1:
    /// `A − LSR − DLSR` with `A` the compact arrival time of this block at the SR sender.
    /// `nil` if the block carries no LSR; 0 if clock skew would make it negative.
    public func roundTripTimeCompact(arrival: UInt32) -> UInt32? {
        guard lastSenderReport != 0 else { return nil }
        let rtt = arrival &- lastSenderReport &- delaySinceLastSenderReport
        return Int32(bitPattern: rtt) < 0 ? 0 : rtt
    }

    /// Round-trip time in seconds for a block that arrived at `arrival` (see
    /// ``roundTripTimeCompact(arrival:)``).
    public func roundTripTime(arrivedAt arrival: NTPTimestamp) -> Double? {
        roundTripTimeCompact(arrival: arrival.compact).map(NTPTimestamp.seconds(fromCompact:))
    }

    init(parsing bytes: UnsafeRawBufferPointer, at offset: Int) {
        let lost = bytes.bigEndianUInt32(at: offset + 4)
        self.init(
            ssrc: bytes.bigEndianUInt32(at: offset),
            fractionLost: UInt8(truncatingIfNeeded: lost >> 24),
            cumulativeLost: Int32(bitPattern: lost << 8) >> 8,  // sign-extend 24 bits
            extendedHighestSequence: bytes.bigEndianUInt32(at: offset + 8),
            jitter: bytes.bigEndianUInt32(at: offset + 12),
            lastSenderReport: bytes.bigEndianUInt32(at: offset + 16),
            delaySinceLastSenderReport: bytes.bigEndianUInt32(at: offset + 20)
        )
    }

    func write(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) {
        let lost = UInt32(bitPattern: min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF)) & 0xFF_FFFF
        buffer.storeBigEndian(ssrc, at: offset)
        buffer.storeBigEndian(UInt32(fractionLost) << 24 | lost, at: offset + 4)
        buffer.storeBigEndian(extendedHighestSequence, at: offset + 8)
        buffer.storeBigEndian(jitter, at: offset + 12)
        buffer.storeBigEndian(lastSenderReport, at: offset + 16)
        buffer.storeBigEndian(delaySinceLastSenderReport, at: offset + 20)
    }
}
