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
    /// The E-model's estimate of how the stream we receive sounds (nil before its first packet).
    public var quality: CallQualityEstimate? = nil
}
