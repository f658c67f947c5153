// SPDX-License-Identifier: Apache-2.0
/// A snapshot of one call's media counters.
public struct CallMediaStatistics: Sendable, Equatable {
    /// What was received and played (W3C inbound-rtp).
    public var inbound: InboundRTPStatistics
    /// What was sent (W3C outbound-rtp).
    public var outbound: OutboundRTPStatistics
    /// Datagrams on the wire, SRTP.
    public var transport: CallTransportStatistics
    /// What the far end reports about our stream (RTCP report blocks): loss, jitter, RTT.
    public var remoteInbound: RemoteInboundRTPStatistics
    /// What the far end says it sent (RTCP sender reports).
    public var remoteOutbound: RemoteOutboundRTPStatistics
    /// Events lost because the application did not drain them in time.
    public var eventsDropped: Int
    /// The E-model's estimate of how the stream we receive sounds, over the whole call so far
    /// (nil before its first packet). `quality(since:)` gives it over a span.
    public var quality: CallQualityEstimate? = nil
    /// What `quality` was computed from, kept for `quality(since:)`.
    var qualityInputs: VoIPMetricsInputs? = nil
    var roundTripTimeSeconds: Double? = nil

    /// The E-model's estimate of how the stream we received sounded between `earlier` (a
    /// snapshot of the same call taken before) and this snapshot: the misses, their bursts, the
    /// FEC and the bitrate counted over that span alone, so a bad start (or a bad minute) does
    /// not weigh on a good stretch after it — the figure to set beside a score of that span's
    /// audio. Delay, jitter and the round trip are as now. From a snapshot taken before the
    /// first packet, it is `quality`; nil before this call's first packet.
    public func quality(since earlier: CallMediaStatistics) -> CallQualityEstimate? {
        guard let inputs = qualityInputs else { return nil }
        guard let before = earlier.qualityInputs else {
            return CallQualityEstimate(inputs: inputs, roundTripTimeSeconds: roundTripTimeSeconds)
        }
        return CallQualityEstimate(inputs: inputs.since(before), roundTripTimeSeconds: roundTripTimeSeconds)
    }
}
