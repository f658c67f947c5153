// SPDX-License-Identifier: Apache-2.0
/// Counters of an `AdaptiveJitterBuffer`, named and defined as in the W3C WebRTC statistics
/// (`RTCInboundRtpStreamStats`). Samples are per channel at the configured sample rate.
public struct JitterBufferStatistics: Sendable, Hashable, BitwiseCopyable {
    /// RTP packets handed to `insert`, whatever became of them.
    public var packetsReceived = 0
    /// Sum over emitted samples of the time from their packet's arrival to their emission, in seconds.
    public var jitterBufferDelay = 0.0
    /// Samples emitted from received packets (decoded, FEC-recovered or stretched; not concealment).
    public var jitterBufferEmittedCount = 0
    /// Sum over emitted samples of the target delay when they were emitted, in seconds.
    public var jitterBufferTargetDelay = 0.0
    /// Samples concealed: packet-loss concealment plus silent (DTX comfort-noise) samples.
    public var concealedSamples = 0
    /// The part of `concealedSamples` that is silent (W3C's `silentConcealedSamples`): comfort
    /// noise over a sender's DTX gap, and loss concealment of silence (after a second of
    /// decoded frames that `QuietFrameDetector` finds quiet, before another quiet one: the far
    /// end not talking), which no listener hears as a loss.
    public var silentConcealedSamples = 0
    /// Samples decoded from packets while the far end was silent (once `QuietFrameDetector` had
    /// found the stream quiet for a second): with `silentConcealedSamples`, what was played
    /// while it was not talking (ours, not W3C's).
    public var samplesDecodedInSilence = 0
    /// Runs of packet-loss concealment (a run of consecutive concealed frames counts once).
    public var concealmentEvents = 0
    /// Samples added by preemptive expand.
    public var insertedSamplesForDeceleration = 0
    /// Samples removed by accelerate.
    public var removedSamplesForAcceleration = 0
    /// Packets dropped on arrival: late (their playout time had passed), or unusable payload.
    public var packetsDiscarded = 0
    /// Duplicate packets dropped.
    public var packetsDuplicated = 0
    /// Received packets that carry Opus in-band FEC.
    public var fecPacketsReceived = 0
    /// Lost packets recovered from the next packet's FEC.
    public var fecPacketsRecovered = 0
    /// Times the packet store was flushed because a packet did not fit.
    public var flushes = 0

    /// All counters zero.
    public init() {}
}
