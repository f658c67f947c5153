// SPDX-License-Identifier: Apache-2.0
/// The session's own record of each SSRC it has protected or authenticated: the highest
/// packet index (ROC and sequence number) and, for resumed streams, the index below which
/// packets are refused.
///
/// Entries are kept in a small array searched linearly (calls carry one or two SSRCs); adding
/// a new SSRC may allocate, updating an existing one never does.
struct SRTPStreamTable {
    /// One SSRC's record.
    struct Entry {
        /// The stream's SSRC.
        var ssrc: UInt32
        /// Highest packet index `ROC << 16 | SEQ` seen so far (or resumed from).
        var highestIndex: UInt64
        /// Packets with an index at or below this one were handled by an earlier session with
        /// the same key: refuse them (replay on inbound, keystream reuse on outbound).
        var resumedFloor: UInt64?
        /// True until the first packet after resuming has gone through libsrtp; until then
        /// the ROC to use must be told to libsrtp before each attempt.
        var awaitingFirstPacket: Bool
    }

    private(set) var entries: [Entry] = []
    private var lastSlot = 0

    init() {
        entries.reserveCapacity(8)
    }

    /// The slot of `ssrc`, or nil.
    mutating func slot(of ssrc: UInt32) -> Int? {
        if lastSlot < entries.count, entries[lastSlot].ssrc == ssrc { return lastSlot }
        for index in entries.indices where entries[index].ssrc == ssrc {
            lastSlot = index
            return index
        }
        return nil
    }

    subscript(slot: Int) -> Entry {
        get { entries[slot] }
        _modify { yield &entries[slot] }
    }

    /// Adds a resumed stream.
    mutating func addResumed(_ state: SRTPStreamState) {
        entries.append(Entry(ssrc: state.ssrc, highestIndex: state.packetIndex,
                             resumedFloor: state.packetIndex, awaitingFirstPacket: true))
    }

    /// Records a packet that libsrtp accepted.
    mutating func record(ssrc: UInt32, sequenceNumber: UInt16) {
        if let slot = slot(of: ssrc) {
            let index = Self.estimatedIndex(sequenceNumber: sequenceNumber, highestIndex: entries[slot].highestIndex)
            if index > entries[slot].highestIndex { entries[slot].highestIndex = index }
            entries[slot].awaitingFirstPacket = false
        } else {
            // A new SSRC starts at ROC 0, as libsrtp's fresh streams do.
            entries.append(Entry(ssrc: ssrc, highestIndex: UInt64(sequenceNumber),
                                 resumedFloor: nil, awaitingFirstPacket: false))
            lastSlot = entries.count - 1
        }
    }

    /// RFC 3711 §3.3.1 / Appendix A: the packet index of `sequenceNumber` guessed from the
    /// highest index seen, choosing ROC-1, ROC or ROC+1 to land closest to it.
    static func estimatedIndex(sequenceNumber: UInt16, highestIndex: UInt64) -> UInt64 {
        let roc = highestIndex >> 16
        let highestSeq = Int(highestIndex & 0xFFFF)
        let seq = Int(sequenceNumber)
        var guessRoc = roc
        if highestSeq < 0x8000 {
            if seq - highestSeq > 0x8000, roc > 0 { guessRoc = roc - 1 }
        } else if highestSeq - 0x8000 > seq {
            guessRoc = roc + 1
        }
        return guessRoc << 16 | UInt64(sequenceNumber)
    }
}
