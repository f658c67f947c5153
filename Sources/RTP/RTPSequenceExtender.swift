// SPDX-License-Identifier: Apache-2.0
/// Extends 16-bit RTP sequence numbers to 32 bits across wraps and validates a source,
/// following RFC 3550 Appendix A.1 (`init_seq` / `update_seq`): probation until
/// `minSequential` packets arrive in sequence, at most ``maxDropout`` forward jump, at most
/// ``maxMisorder`` backwards, restart after two sequential packets following a big jump.
///
/// Beyond A.1 it recognises duplicates among the last 128 sequence numbers.
/// A plain value: updating it never allocates.
public struct RTPSequenceExtender: Sendable, Hashable {
    /// Largest forward jump treated as loss rather than a restart (A.1 `MAX_DROPOUT`).
    public static let maxDropout: UInt16 = 3000
    /// Largest backward step treated as reordering (A.1 `MAX_MISORDER`).
    public static let maxMisorder: UInt16 = 100

    /// Packets in sequence needed before a new source is valid (A.1 `MIN_SEQUENTIAL`).
    public let minSequential: Int

    /// Highest sequence number seen (A.1 `max_seq`).
    public private(set) var maxSequence: UInt16 = 0
    /// Wrap count shifted left 16 bits (A.1 `cycles`).
    public private(set) var cycles: UInt32 = 0
    /// First sequence number of the validated stream (A.1 `base_seq`).
    public private(set) var baseSequence: UInt16 = 0
    /// Packets counted as received since the stream (re)started (A.1 `received`).
    public private(set) var received: UInt32 = 0
    private var badSequence: UInt32 = 0x1_0001  // RTP_SEQ_MOD + 1: matches nothing
    private var probation: Int
    private var started = false
    private var seenWindow: (UInt64, UInt64) = (0, 0)  // bit i: maxSequence - i received

    /// A new extender for a source not yet heard.
    /// - Parameter minSequential: sequential packets required before the source is valid;
    ///   RFC 3550 uses 2. Values below 1 are treated as 1 (valid from the first packet).
    public init(minSequential: Int = 2) {
        self.minSequential = max(1, minSequential)
        self.probation = self.minSequential
    }

    /// Whether the source has passed probation.
    public var isValid: Bool { started && probation == 0 }

    /// Extended highest sequence number (`cycles + max_seq`).
    public var extendedMaxSequence: UInt32 { cycles &+ UInt32(maxSequence) }

    /// Packets expected since the stream (re)started: `extended max − base + 1` (A.3), or 0
    /// before the source is valid.
    public var expected: UInt32 {
        isValid ? extendedMaxSequence &- UInt32(baseSequence) &+ 1 : 0
    }

    /// Classifies `sequenceNumber` and updates the state.
    public mutating func update(_ sequenceNumber: UInt16) -> RTPSequenceUpdate {
        if !started {
            started = true
            restart(at: sequenceNumber)
            maxSequence = sequenceNumber &- 1
            probation = minSequential
        }
        let delta = sequenceNumber &- maxSequence
        if probation > 0 {
            if sequenceNumber == maxSequence &+ 1 {
                probation -= 1
                maxSequence = sequenceNumber
                if probation == 0 {
                    restart(at: sequenceNumber)
                    received += 1
                    return .inOrder(extendedSequence: extendedMaxSequence)
                }
            } else {
                probation = minSequential - 1
                maxSequence = sequenceNumber
            }
            return .probation
        } else if delta == 0 {
            // Duplicate of the highest: A.1 counts it as received.
            received += 1
            return .duplicate(extendedSequence: extendedMaxSequence)
        } else if delta < Self.maxDropout {
            // In order, with permissible gap.
            if sequenceNumber < maxSequence { cycles &+= 0x1_0000 }
            maxSequence = sequenceNumber
            shiftWindow(by: Int(delta))
            received += 1
            return .inOrder(extendedSequence: extendedMaxSequence)
        } else if delta <= UInt16.max - Self.maxMisorder {
            // A very large jump.
            if UInt32(sequenceNumber) == badSequence {
                // Two sequential packets: assume the other side restarted without telling us.
                restart(at: sequenceNumber)
                received += 1
                return .restarted(extendedSequence: extendedMaxSequence)
            }
            badSequence = (UInt32(sequenceNumber) + 1) & 0xFFFF
            return .badJump
        } else {
            // Duplicate or reordered packet.
            let back = Int(maxSequence &- sequenceNumber)  // 1...maxMisorder
            let extended = extendedMaxSequence &- UInt32(back)
            received += 1
            if markSeen(back: back) { return .duplicate(extendedSequence: extended) }
            return .reordered(extendedSequence: extended)
        }
    }

    /// Forgets everything, as for a new source.
    public mutating func reset() {
        self = RTPSequenceExtender(minSequential: minSequential)
    }

    /// A.1 `init_seq`, plus the duplicate window.
    private mutating func restart(at sequenceNumber: UInt16) {
        baseSequence = sequenceNumber
        maxSequence = sequenceNumber
        badSequence = 0x1_0001
        cycles = 0
        received = 0
        seenWindow = (1, 0)
    }

    /// Moves the window forward `delta` (≥ 1) steps and marks the new maximum seen.
    private mutating func shiftWindow(by delta: Int) {
        if delta >= 128 {
            seenWindow = (1, 0)
        } else if delta >= 64 {
            seenWindow = (1, seenWindow.0 << (delta - 64))
        } else {
            seenWindow = (seenWindow.0 << delta | 1, seenWindow.1 << delta | seenWindow.0 >> (64 - delta))
        }
    }

    /// Marks `maxSequence - back` seen; returns whether it already was.
    private mutating func markSeen(back: Int) -> Bool {
        if back < 64 {
            let bit = UInt64(1) << back
            defer { seenWindow.0 |= bit }
            return seenWindow.0 & bit != 0
        } else if back < 128 {
            let bit = UInt64(1) << (back - 64)
            defer { seenWindow.1 |= bit }
            return seenWindow.1 & bit != 0
        }
        return false
    }

    /// Extenders are equal when their whole state is.
    public static func == (lhs: RTPSequenceExtender, rhs: RTPSequenceExtender) -> Bool {
        lhs.minSequential == rhs.minSequential && lhs.maxSequence == rhs.maxSequence
            && lhs.cycles == rhs.cycles && lhs.baseSequence == rhs.baseSequence
            && lhs.received == rhs.received && lhs.badSequence == rhs.badSequence
            && lhs.probation == rhs.probation && lhs.started == rhs.started
            && lhs.seenWindow == rhs.seenWindow
    }

    /// Hashes the whole state.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(minSequential); hasher.combine(maxSequence); hasher.combine(cycles)
        hasher.combine(baseSequence); hasher.combine(received); hasher.combine(badSequence)
        hasher.combine(probation); hasher.combine(started)
        hasher.combine(seenWindow.0); hasher.combine(seenWindow.1)
    }
}
