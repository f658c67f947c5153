// SPDX-License-Identifier: Apache-2.0
/// What ``RTPSequenceExtender`` decided about one received sequence number.
public enum RTPSequenceUpdate: Sendable, Hashable {
    /// A new highest sequence number (possibly after a gap or a wrap).
    case inOrder(extendedSequence: UInt32)
    /// Older than the highest seen, within the misorder window, not seen before.
    case reordered(extendedSequence: UInt32)
    /// Already received (within the last 128 sequence numbers). RFC 3550 still counts it as
    /// received, so cumulative loss can go negative.
    case duplicate(extendedSequence: UInt32)
    /// The source is on probation (RFC 3550 A.1): not yet enough sequential packets; the packet
    /// is not counted.
    case probation
    /// A jump beyond the dropout/misorder limits; the packet is discarded (not counted). A
    /// second packet following it in sequence restarts the stream.
    case badJump
    /// Two sequential packets after a large jump: the sender restarted; counts start again
    /// at this packet.
    case restarted(extendedSequence: UInt32)

    /// The packet's extended (32-bit, wrap-counted) sequence number, if it was accepted.
    public var extendedSequence: UInt32? {
        switch self {
        case .inOrder(let value), .reordered(let value), .duplicate(let value), .restarted(let value): value
        case .probation, .badJump: nil
        }
    }

    /// Whether RFC 3550 counts the packet as received.
    public var isCounted: Bool { extendedSequence != nil }
}
