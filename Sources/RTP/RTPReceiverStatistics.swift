// SPDX-License-Identifier: Apache-2.0
/// Reception statistics for one remote source, as RFC 3550 defines them: extended highest
/// sequence number, cumulative and interval loss (A.3), interarrival jitter (A.8), plus
/// packet, byte and duplicate counters. Produces the RTCP report block for the source.
///
/// Sans-I/O: the caller gives each packet's arrival time in the stream's RTP clock units
/// (e.g. the media clock's sample count at 48 kHz), and NTP wall-clock times for sender
/// reports. A plain value: ``record(sequenceNumber:timestamp:arrivalTime:payloadBytes:)``
/// never allocates. Route packets by SSRC before recording them here.
public struct RTPReceiverStatistics: Sendable, Hashable {
    /// The source these statistics describe.
    public let ssrc: UInt32
    /// Sequence-number state (RFC 3550 A.1).
    public private(set) var sequence: RTPSequenceExtender
    /// Packets accepted since statistics began (duplicates and late packets included; not
    /// reset by a sender restart).
    public private(set) var packetsReceived: UInt64 = 0
    /// Payload bytes (padding excluded) of the packets counted in ``packetsReceived``.
    public private(set) var bytesReceived: UInt64 = 0
    /// Packets recognised as duplicates.
    public private(set) var duplicatePackets: UInt64 = 0
    /// Packets not counted: received while on probation or after an out-of-range jump.
    public private(set) var discardedPackets: UInt64 = 0
    /// Times the sender was seen to restart its sequence numbers.
    public private(set) var restarts: UInt64 = 0

    private var jitterTimes16: UInt64 = 0  // A.8 jitter scaled by 16
    private var lastTransit: Int32 = 0
    private var hasTransit = false
    private var expectedPrior: UInt32 = 0
    private var receivedPrior: UInt32 = 0
    private var lastSenderReportNTP: UInt32 = 0
    private var lastSenderReportArrival: NTPTimestamp? = nil

    /// Statistics for `ssrc`, not yet heard.
    /// - Parameters:
    ///   - ssrc: the source the statistics are of.
    ///   - minSequential: see ``RTPSequenceExtender/init(minSequential:)``.
    public init(ssrc: UInt32, minSequential: Int = 2) {
        self.ssrc = ssrc
        self.sequence = RTPSequenceExtender(minSequential: minSequential)
    }

    /// Records one received packet.
    /// - Parameters:
    ///   - sequenceNumber: the packet's RTP sequence number.
    ///   - timestamp: the packet's RTP timestamp.
    ///   - arrivalTime: when it arrived, in the same clock units as `timestamp` (any origin,
    ///     wrapping allowed).
    ///   - payloadBytes: payload size without header and padding.
    /// - Returns: how the sequence number was classified.
    @discardableResult
    public mutating func record(
        sequenceNumber: UInt16,
        timestamp: UInt32,
        arrivalTime: UInt32,
        payloadBytes: Int
    ) -> RTPSequenceUpdate {
        let update = sequence.update(sequenceNumber)
        switch update {
        case .badJump:
            discardedPackets += 1
            return update
        case .probation:
            discardedPackets += 1
        case .duplicate:
            duplicatePackets += 1
        case .restarted:
            restarts += 1
            expectedPrior = 0
            receivedPrior = 0
            hasTransit = false
        case .inOrder, .reordered:
            break
        }
        if update.isCounted {
            packetsReceived += 1
            bytesReceived += UInt64(max(payloadBytes, 0))
        }
        if case .duplicate = update { return update }
        updateJitter(timestamp: timestamp, arrivalTime: arrivalTime)
        return update
    }

    /// Records a parsed packet (see ``record(sequenceNumber:timestamp:arrivalTime:payloadBytes:)``).
    @discardableResult
    public mutating func record(_ packet: RTPPacketView, arrivalTime: UInt32) -> RTPSequenceUpdate {
        record(
            sequenceNumber: packet.sequenceNumber,
            timestamp: packet.timestamp,
            arrivalTime: arrivalTime,
            payloadBytes: packet.payloadRange.count
        )
    }

    /// RFC 3550 A.8: `D = (Rj − Ri) − (Sj − Si)`, `J += (|D| − J) / 16`, in integer form
    /// with J kept scaled by 16.
    private mutating func updateJitter(timestamp: UInt32, arrivalTime: UInt32) {
        let transit = Int32(bitPattern: arrivalTime &- timestamp)
        defer { lastTransit = transit; hasTransit = true }
        guard hasTransit else { return }
        let d = UInt64((transit &- lastTransit).magnitude)
        jitterTimes16 = jitterTimes16 + d - ((jitterTimes16 + 8) >> 4)
    }

    /// Interarrival jitter in RTP timestamp units (A.8 `jitter >> 4`).
    public var jitter: UInt32 { UInt32(clamping: jitterTimes16 >> 4) }

    /// Extended highest sequence number received.
    public var extendedHighestSequence: UInt32 { sequence.extendedMaxSequence }

    /// Packets expected since the stream (re)started (A.3).
    public var packetsExpected: Int64 { Int64(sequence.expected) }

    /// Packets lost since the stream (re)started: expected − received; negative when
    /// duplicates outnumber losses (A.3).
    public var cumulativeLost: Int64 { Int64(sequence.expected) - Int64(sequence.received) }

    /// Notes an RTCP sender report from this source, for the LSR/DLSR of the next block.
    /// - Parameters:
    ///   - ntpTimestamp: the NTP timestamp inside the SR.
    ///   - arrival: local wall-clock time the SR arrived.
    public mutating func recordSenderReport(ntpTimestamp: NTPTimestamp, arrivedAt arrival: NTPTimestamp) {
        lastSenderReportNTP = ntpTimestamp.compact
        lastSenderReportArrival = arrival
    }

    /// The report block to send now, and the start of a new reporting interval (the fraction
    /// lost counts from the previous call, A.3). `nil` while the source has not passed
    /// probation.
    /// - Parameter now: local wall-clock time the report is sent, for DLSR.
    public mutating func makeReportBlock(at now: NTPTimestamp) -> RTCPReportBlock? {
        guard sequence.isValid else { return nil }
        let expected = sequence.expected
        let received = sequence.received
        let expectedInterval = Int64(expected) - Int64(expectedPrior)
        let receivedInterval = Int64(received) - Int64(receivedPrior)
        expectedPrior = expected
        receivedPrior = received
        let lostInterval = expectedInterval - receivedInterval
        let fraction: UInt8 =
            expectedInterval <= 0 || lostInterval <= 0
            ? 0 : UInt8(clamping: (lostInterval << 8) / expectedInterval)
        let cumulative = Int32(clamping: min(max(cumulativeLost, -0x80_0000), 0x7F_FFFF))
        var delay: UInt32 = 0
        if let arrival = lastSenderReportArrival { delay = now.compact &- arrival.compact }
        return RTCPReportBlock(
            ssrc: ssrc,
            fractionLost: fraction,
            cumulativeLost: cumulative,
            extendedHighestSequence: extendedHighestSequence,
            jitter: jitter,
            lastSenderReport: lastSenderReportNTP,
            delaySinceLastSenderReport: delay
        )
    }
}
