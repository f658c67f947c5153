// SPDX-License-Identifier: Apache-2.0
/// Where playout stands in the stream and how the last audio was produced: what
/// `DecisionLogic` reads and the operations advance. A value, so a decision can be tested on
/// any state without a decoder.
struct PlayoutState: Equatable {
    /// Extended sequence number of the packet due next.
    var nextSequence: Int64 = 0
    /// Extended RTP timestamp of the next sample to play.
    var nextTimestamp: Int64 = 0
    /// Samples concealed since audio last came from a packet (0: not concealing).
    var expandedSamples = 0
    /// Samples played without advancing through the stream (concealment while waiting for a
    /// packet, comfort noise while the sender is in DTX); 0 once a packet plays.
    var waitedSamples = 0
    /// The latest audio was concealment: the next decoded packet is booked as a merge (libopus
    /// joins it to the concealment itself).
    var followsConcealment = false
    /// The last packet decoded was an Opus DTX packet: the sender is silent until its next one.
    var isInDTX = false
    /// How the latest audio was produced.
    var lastKind = PlayoutKind.comfortNoise
    /// Samples concealed since the last decoded frame, which ended a long quiet run (the far end
    /// not talking): silent concealment if the next decoded frame is quiet too, a lost word's
    /// if not.
    var concealedInSilenceSamples = 0

    /// Playout goes on from `sequence` / `timestamp` (a stream begins, or the store was flushed).
    mutating func move(toSequence sequence: Int64, timestamp: Int64) {
        nextSequence = sequence
        nextTimestamp = timestamp
    }

    /// Books audio from a packet (decoded, stretched, merged or rebuilt from FEC) as queued:
    /// any concealment or wait is over.
    mutating func finishProduction(_ kind: PlayoutKind) {
        expandedSamples = 0
        waitedSamples = 0
        followsConcealment = false
        lastKind = kind
    }

    /// Applies the position change a decision makes before its operation runs.
    mutating func apply(_ realignment: PlayoutDecision.Realignment) {
        switch realignment {
        case .none:
            break
        case .creditWaitedSamples(let samples):
            nextTimestamp += Int64(samples)
            waitedSamples = 0
            expandedSamples = 0
            followsConcealment = false
        case .skipMissingPackets(let sequence, let timestamp):
            move(toSequence: sequence, timestamp: timestamp)
        }
    }
}
