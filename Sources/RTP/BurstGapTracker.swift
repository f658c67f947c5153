// SPDX-License-Identifier: Apache-2.0
/// Puts a stream's packets, seen in arrival order, into sequence order for
/// ``BurstGapStatistics``: each arrival marks its sequence number received or discarded in a
/// window of the last 64 sequence numbers, and a sequence number is decided when the window
/// moves past it — received, discarded, or lost if it never came. A packet reordered by less
/// than the window is counted where it belongs (one that overtook the stream's first packet
/// too); one later than that is already counted lost.
///
/// ``statistics`` reads the stream as if it ended at the highest sequence number seen (the
/// window's undecided numbers counted as they stand, missing ones lost); the tracker itself
/// keeps waiting for them. Sequence numbers are 16-bit and wrap; a jump of more than 3,000
/// either way (RFC 3550 A.1's dropout limit; the jitter buffer restarts there too) starts a
/// new sequence instead of counting thousands lost.
/// A plain value: `record` never allocates.
public struct BurstGapTracker: Sendable, Hashable, BitwiseCopyable {
    /// Sequence numbers held undecided.
    public static let windowLength = 64
    /// A jump larger than this starts a new sequence (RFC 3550 A.1 MAX_DROPOUT).
    public static let maximumJump: Int64 = 3_000

    /// The packets decided so far, in sequence order.
    public private(set) var decided: BurstGapStatistics
    /// Extended sequence number of the window's first (oldest undecided) position, and of the
    /// highest arrival; nil before the first packet of a sequence.
    private var windowStart: Int64?
    private var highest: Int64 = 0
    /// Bit i: position windowStart + i arrived (played or held), or was discarded.
    private var receivedBits: UInt64 = 0
    private var discardedBits: UInt64 = 0
    /// Positions of the current sequence decided so far.
    private var decidedInSequence = 0

    /// A tracker feeding statistics with gap threshold `gapThreshold` (Gmin).
    public init(gapThreshold: Int = 16) {
        decided = BurstGapStatistics(gapThreshold: gapThreshold)
    }

    /// Records the arrival of `sequenceNumber`: `discarded` when the receiver dropped it as
    /// too late (or too early) to play. A copy that was played counts as received even if
    /// another copy was discarded.
    public mutating func record(sequenceNumber: UInt16, discarded: Bool) {
        guard let start = windowStart else {
            windowStart = Int64(sequenceNumber)
            highest = Int64(sequenceNumber)
            mark(0, discarded: discarded)
            return
        }
        let delta = SerialNumberArithmetic.distance(from: UInt16(truncatingIfNeeded: highest), to: sequenceNumber)
        if abs(delta) > Self.maximumJump {
            startNewSequence()
            record(sequenceNumber: sequenceNumber, discarded: discarded)
            return
        }
        let position = highest + delta
        if position < start {
            // Decided already (counted lost) — unless nothing is decided yet: a packet that
            // overtook the stream's first one moves the start back.
            guard decidedInSequence == 0, highest - position < Int64(Self.windowLength) else { return }
            receivedBits <<= UInt64(start - position)
            discardedBits <<= UInt64(start - position)
            windowStart = position
        }
        if position > highest {
            highest = position
            while highest - windowStart! >= Int64(Self.windowLength) { decideOldest() }
        }
        mark(Int(position - windowStart!), discarded: discarded)
    }

    /// Decides every undecided sequence number (missing ones lost) and forgets the sequence:
    /// the next packet starts a new one (a new SSRC, a sender restart).
    public mutating func startNewSequence() {
        while let start = windowStart, start <= highest { decideOldest() }
        windowStart = nil
        decidedInSequence = 0
        receivedBits = 0
        discardedBits = 0
    }

    /// The statistics as if the stream ended at the highest sequence number seen: the
    /// undecided ones counted as they stand now.
    public var statistics: BurstGapStatistics {
        var copy = self
        copy.startNewSequence()
        return copy.decided
    }

    private mutating func mark(_ index: Int, discarded: Bool) {
        let bit = UInt64(1) << UInt64(index)
        if discarded { discardedBits |= bit } else { receivedBits |= bit }
    }

    private mutating func decideOldest() {
        let outcome: BurstGapStatistics.Outcome =
            receivedBits & 1 != 0 ? .received : discardedBits & 1 != 0 ? .discarded : .lost
        decided.record(outcome)
        receivedBits >>= 1
        discardedBits >>= 1
        windowStart! += 1
        decidedInSequence += 1
    }
}
