// SPDX-License-Identifier: Apache-2.0
/// Counters of what a call received and played, named and defined as in the W3C WebRTC
/// statistics (`RTCInboundRtpStreamStats`) where a name exists there; the others are ours and
/// say so. Sequence accounting follows RFC 3550 A.1/A.3/A.8 (`RTPReceiverStatistics`),
/// playout the jitter buffer's own counters; samples are per channel at the call's rate.
///
/// Every received datagram is counted once in `CallMediaStatistics.transport`, and every RTP
/// packet that is not played once here, under one reason.
public struct InboundRTPStatistics: Sendable, Equatable, BitwiseCopyable {
    /// The synchronisation source being received (nil before the first packet).
    public var ssrc: UInt32?
    /// RTP packets received from the sender (all its payload types, duplicates included).
    public var packetsReceived = 0
    /// Payload bytes of those packets (W3C: headers and padding excluded).
    public var bytesReceived = 0
    /// RTP header and padding bytes of those packets.
    public var headerBytesReceived = 0
    /// Ours: the packets among those that carry speech rather than a pause (judged by payload
    /// size against the recent peak), and their payload bytes: the bitrate the sender speaks
    /// at, which the call's quality estimate looks the codec's impairment up at.
    public var speechPacketsReceived = 0
    public var speechBytesReceived = 0
    /// Packets lost: expected minus received over every stream of the call (RFC 3550 A.3;
    /// negative while duplicates outnumber losses).
    public var packetsLost = 0
    /// Interarrival jitter in seconds (RFC 3550 A.8).
    public var jitter = 0.0
    /// Packets the jitter buffer dropped: too late to play, or an unusable payload.
    public var packetsDiscarded = 0
    /// Ours: packets that arrived twice (RFC 3550 A.1 sequence tracking, the last 128
    /// sequence numbers); the copies are dropped.
    public var packetsDuplicated = 0
    /// Ours: packets that arrived after a later one (reordered on the way, not duplicated).
    public var packetsReordered = 0
    /// Packets carrying Opus in-band FEC.
    public var fecPacketsReceived = 0
    /// Ours: lost packets rebuilt from the next packet's in-band FEC.
    public var fecPacketsRecovered = 0
    /// Sum over emitted samples of the time from their packet's arrival to their playout, in s.
    public var jitterBufferDelay = 0.0
    /// Sum over emitted samples of the jitter buffer's target delay at their playout, in s.
    public var jitterBufferTargetDelay = 0.0
    /// Samples emitted from received packets (the divisor of the two delays above).
    public var jitterBufferEmittedCount = 0
    /// Ours: the jitter buffer's current target delay, in ms.
    public var jitterBufferTargetDelayMs = 0.0
    /// Samples played, received or concealed.
    public var totalSamplesReceived = 0
    /// Samples concealed (loss concealment and DTX comfort noise).
    public var concealedSamples = 0
    /// The part of `concealedSamples` played over the sender's silence: DTX comfort noise, and
    /// loss concealed where the far end was not talking (W3C's `silentConcealedSamples`).
    public var silentConcealedSamples = 0
    /// Ours: samples decoded while the far end was silent (a second of quiet frames); with
    /// `silentConcealedSamples`, what was played while it was not talking.
    public var samplesDecodedInSilence = 0
    /// Runs of concealment.
    public var concealmentEvents = 0
    /// Samples added by slowing playout down.
    public var insertedSamplesForDeceleration = 0
    /// Samples removed by speeding playout up.
    public var removedSamplesForAcceleration = 0
    /// Level of the audio played, 0…1 (1 = full scale), the peak of the last 100 ms.
    public var audioLevel = 0.0
    /// Energy of the audio played: Σ (sample / full scale)² × sample duration.
    public var totalAudioEnergy = 0.0
    /// Seconds of audio played.
    public var totalSamplesDuration = 0.0
    /// Receiver clock time of the last packet received, in ms.
    public var lastPacketReceivedTimestampMs: Double?
    /// Ours: RFC 4733 telephone events (key presses) received.
    public var telephoneEventsReceived = 0
    /// Ours: packets too malformed for RTP to parse.
    public var malformedPackets = 0
    /// Ours: packets of a payload type that was not negotiated.
    public var unknownPayloadTypePackets = 0
    /// Ours: times the sender's SSRC changed (the jitter buffer restarts its stream).
    public var ssrcChanges = 0
    /// Ours: packets from a new SSRC dropped while it had not yet sent two in sequence (one
    /// stray, forged or hopping SSRC cannot restart playout), or while the current sender was
    /// still talking (`packetsFromCompetingSource`, counted in both).
    public var packetsFromUnconfirmedSource = 0
    /// Ours: packets from another SSRC dropped while the current sender was still talking (a
    /// parallel stream: a second sender with the key, a forked call); such a stream replaces
    /// the current one only after it has been silent (500 ms) or said goodbye.
    public var packetsFromCompetingSource = 0
    /// Ours: packets counted but not played because the call was held.
    public var packetsReceivedWhileHeld = 0
    /// Ours: packets dropped because the queue from the network side was full.
    public var packetsDroppedQueueFull = 0

    /// All counters zero.
    public init() {}
}
