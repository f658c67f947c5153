// SPDX-License-Identifier: Apache-2.0
import MediaEngine

/// A receiver's counters over one window of a call (differences of its cumulative W3C
/// statistics), and the sender's FEC plan at the window's start and end.
public struct WindowStatistics: Sendable, Equatable {
    /// RTP packets received.
    public var packetsReceived: Int
    /// Packets lost on the network (RFC 3550: expected less received).
    public var packetsLost: Int
    /// Packets received too late to play.
    public var packetsDiscarded: Int
    /// Received packets that carried in-band FEC.
    public var fecPacketsReceived: Int
    /// Lost or late packets rebuilt from the next packet's FEC.
    public var fecPacketsRecovered: Int
    /// Samples played.
    public var totalSamplesReceived: Int
    /// Samples concealed (packet loss concealment, comfort noise).
    public var concealedSamples: Int
    /// Concealment events (runs of concealed samples).
    public var concealmentEvents: Int
    /// Samples added by slowing playout down (preemptive expand).
    public var insertedSamplesForDeceleration: Int
    /// Samples removed by speeding playout up (accelerate).
    public var removedSamplesForAcceleration: Int
    /// Mean time a played sample spent in the jitter buffer, in ms (0 when none played).
    public var meanJitterBufferDelayMs: Double
    /// The loss the sender's encoder planned FEC for at the window's start, in percent.
    public var plannedLossPercentAtStart: Int
    /// The loss the sender's encoder planned FEC for at the window's end, in percent.
    public var plannedLossPercentAtEnd: Int

    /// The counters between two snapshots of one receiver; the plans are its sender's.
    public init(from before: InboundRTPStatistics, to after: InboundRTPStatistics, plannedLossPercentAtStart: Int,
                plannedLossPercentAtEnd: Int) {
        packetsReceived = after.packetsReceived - before.packetsReceived
        packetsLost = after.packetsLost - before.packetsLost
        packetsDiscarded = after.packetsDiscarded - before.packetsDiscarded
        fecPacketsReceived = after.fecPacketsReceived - before.fecPacketsReceived
        fecPacketsRecovered = after.fecPacketsRecovered - before.fecPacketsRecovered
        totalSamplesReceived = after.totalSamplesReceived - before.totalSamplesReceived
        concealedSamples = after.concealedSamples - before.concealedSamples
        concealmentEvents = after.concealmentEvents - before.concealmentEvents
        insertedSamplesForDeceleration = after.insertedSamplesForDeceleration - before.insertedSamplesForDeceleration
        removedSamplesForAcceleration = after.removedSamplesForAcceleration - before.removedSamplesForAcceleration
        let emitted = after.jitterBufferEmittedCount - before.jitterBufferEmittedCount
        meanJitterBufferDelayMs = emitted > 0 ? (after.jitterBufferDelay - before.jitterBufferDelay) / Double(emitted) * 1_000 : 0
        self.plannedLossPercentAtStart = plannedLossPercentAtStart
        self.plannedLossPercentAtEnd = plannedLossPercentAtEnd
    }

    /// Packets lost on the network, as a share of those sent, in percent. RFC 3550's count
    /// can fall within a window (a packet counted lost at its start arrived in it, late):
    /// such a window shows no loss.
    public var lossPercent: Double { Self.percent(max(0, packetsLost), of: packetsReceived + max(0, packetsLost)) }
    /// Received packets that carried in-band FEC, in percent.
    public var fecPercent: Double { Self.percent(fecPacketsReceived, of: packetsReceived) }
    /// Samples played that were concealed, in percent.
    public var concealedPercent: Double { Self.percent(concealedSamples, of: totalSamplesReceived) }

    /// Samples played that were time-stretched in (decelerate) or out (accelerate), as a share
    /// of those played, in percent.
    public var stretchedPercent: Double {
        Self.percent(insertedSamplesForDeceleration + removedSamplesForAcceleration, of: totalSamplesReceived)
    }

    private static func percent(_ part: Int, of whole: Int) -> Double {
        whole > 0 ? 100 * Double(part) / Double(whole) : 0
    }
}
