/// The outcome of one `AdaptiveJitterBuffer.nextFrame` tick.
public struct PlayoutEvent: Sendable, Hashable {
    /// How the audio that started this tick was produced (the latest production when the
    /// tick only continued audio produced earlier).
    public var kind: PlayoutKind
    /// The RTP sequence number whose audio started playing this tick, if any.
    public var sequenceNumber: UInt16?

    /// Creates an event.
    public init(kind: PlayoutKind, sequenceNumber: UInt16?) {
        self.kind = kind
        self.sequenceNumber = sequenceNumber
    }
}
