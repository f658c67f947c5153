// SPDX-License-Identifier: Apache-2.0
/// What `DecisionLogic` decided for one production: how the playout position moves first, then
/// the operation that produces the audio.
struct PlayoutDecision: Equatable {
    /// A change of playout position made before the operation runs.
    enum Realignment: Equatable {
        /// Playout stays where it is.
        case none
        /// The sender was silent (DTX): the samples played while waiting for its next packet
        /// stood for the first `samples` of the gap, so playout moves past them.
        case creditWaitedSamples(Int)
        /// The packets missing before the next stored one are given up (their span has already
        /// been concealed): playout goes on from that packet.
        case skipMissingPackets(sequence: Int64, timestamp: Int64)
    }

    /// The position change, if any.
    var realignment = Realignment.none
    /// The operation to carry out.
    var operation: PlayoutOperation
}

extension PlayoutDecision {
    /// Whether it plays on past a packet that never came in time: skips it, rebuilds it from
    /// FEC or conceals its span moving on (a wait in place is not yet a loss).
    var givesUpAMissingPacket: Bool {
        if case .skipMissingPackets = realignment { return true }
        switch operation {
        case .fecRecovery, .expand(.advancing): return true
        default: return false
        }
    }
}
