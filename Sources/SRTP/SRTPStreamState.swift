// SPDX-License-Identifier: Apache-2.0
/// Where one SSRC's SRTP stream stands: its rollover counter and highest sequence number.
///
/// Save it before tearing a session down (re-INVITE, media restart) and hand it to
/// `SRTPSession(direction:keyingMaterial:resuming:)` so the new session continues the packet
/// index instead of restarting at ROC 0 — the field bug that turns into one-way audio at the
/// first 16-bit sequence wrap (within ~22 minutes at 50 packets/s, sooner with a random
/// initial sequence number).
public struct SRTPStreamState: Sendable, Hashable {
    /// The stream's synchronization source.
    public var ssrc: UInt32
    /// The rollover counter (RFC 3711 §3.3.1): how many times the sequence number wrapped.
    public var rolloverCounter: UInt32
    /// The highest sequence number protected (outbound) or authenticated (inbound).
    public var highestSequenceNumber: UInt16

    /// Creates a stream state from its parts.
    public init(ssrc: UInt32, rolloverCounter: UInt32, highestSequenceNumber: UInt16) {
        self.ssrc = ssrc
        self.rolloverCounter = rolloverCounter
        self.highestSequenceNumber = highestSequenceNumber
    }

    /// The 48-bit SRTP packet index `ROC * 65536 + SEQ`.
    public var packetIndex: UInt64 { UInt64(rolloverCounter) << 16 | UInt64(highestSequenceNumber) }
}
