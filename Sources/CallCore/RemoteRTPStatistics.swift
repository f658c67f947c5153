// SPDX-License-Identifier: Apache-2.0
import RTP

/// What the far end reports about our stream, from its RTCP receiver report blocks (W3C
/// `RTCRemoteInboundRtpStreamStats`) and its RTCP XR VoIP Metrics blocks (ours).
public struct RemoteInboundRTPStatistics: Sendable, Equatable, BitwiseCopyable {
    /// The far end's fraction lost over its last reporting interval, 0…1.
    public var fractionLost = 0.0
    /// Packets the far end counts lost (RFC 3550 cumulative).
    public var packetsLost = 0
    /// The far end's interarrival jitter, in seconds.
    public var jitter = 0.0
    /// The last round-trip time measured (RFC 3550 §6.4.1: arrival − LSR − DLSR), in seconds.
    public var roundTripTime: Double?
    /// Sum of every round-trip time measured, in seconds.
    public var totalRoundTripTime = 0.0
    /// Round-trip times measured.
    public var roundTripTimeMeasurements = 0
    /// Report blocks about our stream received.
    public var reportsReceived = 0
    /// The last RTCP XR VoIP Metrics block (RFC 3611 §4.7) about our stream: the far end's
    /// loss, discards and their burstiness, delays, jitter buffer, and its E-model R and MOS.
    public var voipMetrics: RTCPVoIPMetricsBlock?
    /// XR VoIP Metrics blocks about our stream received.
    public var voipMetricsReceived = 0

    /// Nothing reported yet.
    public init() {}
}

/// What the far end says it sent, from its RTCP sender reports (W3C
/// `RTCRemoteOutboundRtpStreamStats`).
public struct RemoteOutboundRTPStatistics: Sendable, Equatable, BitwiseCopyable {
    /// Packets the far end says it sent.
    public var packetsSent = 0
    /// Payload bytes the far end says it sent.
    public var bytesSent = 0
    /// The far end's NTP time of its last report, in seconds since 1900.
    public var remoteTimestamp: Double?
    /// Sender reports received.
    public var reportsSent = 0

    /// Nothing reported yet.
    public init() {}
}
