// SPDX-License-Identifier: Apache-2.0
/// One packet of a ``NetworkTrace``: when it was sent and when (if ever) it arrived.
public struct TracePacket: Sendable, Hashable {
    /// The sender's packet number, counting from 0 without wrapping (the RTP sequence number is
    /// its low 16 bits plus an offset).
    public var sequence: Int
    /// Send time on the sender's clock, in milliseconds.
    public var sendMs: Double
    /// Arrival time on the receiver's clock, in milliseconds; nil if the packet was lost.
    public var arrivalMs: Double?

    /// A packet sent at `sendMs` that arrived at `arrivalMs` (nil: lost).
    public init(sequence: Int, sendMs: Double, arrivalMs: Double?) {
        self.sequence = sequence
        self.sendMs = sendMs
        self.arrivalMs = arrivalMs
    }

    /// Arrival minus send time (the one-way delay as the two clocks see it); nil if lost.
    public var delayMs: Double? { arrivalMs.map { $0 - sendMs } }
}
