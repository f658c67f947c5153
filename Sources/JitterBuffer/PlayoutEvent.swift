// SPDX-License-Identifier: Apache-2.0
/// The outcome of one `AdaptiveJitterBuffer.nextFrame` tick.
public struct PlayoutEvent: Sendable, Hashable {
    /// How the first audio that started this tick was produced (the latest production when
    /// the tick only continued audio produced earlier).
    public var kind: PlayoutKind
    /// The RTP sequence number whose audio started playing this tick, if any (the first, when
    /// more than one started: after accelerate, or after the end of a DTX gap within the tick).
    public var sequenceNumber: UInt16?
    /// The last sequence number whose audio started this tick: equal to `sequenceNumber`
    /// unless accelerate consumed more than one packet in the tick, in which case every
    /// packet from `sequenceNumber` through this one started (those not received were lost).
    public var lastSequenceNumber: UInt16?

    /// Creates an event.
    public init(kind: PlayoutKind, sequenceNumber: UInt16?, lastSequenceNumber: UInt16? = nil) {
        self.kind = kind
        self.sequenceNumber = sequenceNumber
        self.lastSequenceNumber = lastSequenceNumber ?? sequenceNumber
    }
}
