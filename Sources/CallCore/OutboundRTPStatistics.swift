// SPDX-License-Identifier: Apache-2.0
/// Counters of what a call sent, named and defined as in the W3C WebRTC statistics
/// (`RTCOutboundRtpStreamStats`) where a name exists there; the others are ours and say so.
public struct OutboundRTPStatistics: Sendable, Equatable, BitwiseCopyable {
    /// The synchronisation source the call sends as.
    public var ssrc: UInt32 = 0
    /// RTP packets sent.
    public var packetsSent = 0
    /// Payload bytes sent (W3C: headers and padding excluded).
    public var bytesSent = 0
    /// RTP header bytes sent.
    public var headerBytesSent = 0
    /// Samples handed to the encoder (per channel).
    public var totalSamplesSent = 0
    /// Ours: frames handed to the encoder.
    public var framesProcessed = 0
    /// Ours: frames the encoder judged silent under DTX and that were not sent (the first of
    /// each silent run is sent, so the receiver knows the sender went silent).
    public var framesSuppressedByDTX = 0
    /// Ours: frames not sent because the call was held (media time still advanced).
    public var framesSkipped = 0
    /// Ours: voice frames not sent because an RFC 4733 key press was sent in their time.
    public var framesReplacedByTelephoneEvents = 0
    /// Ours: RFC 4733 key presses sent.
    public var telephoneEventsSent = 0
    /// The encoder's current target bitrate, in bits per second (W3C `targetBitrate`): the
    /// configured bitrate, or where the bitrate adaptation has moved it.
    public var targetBitrate = 0
    /// Ours: the loss the encoder currently plans in-band FEC for, in percent (0: no FEC).
    public var plannedLossPercent = 0
    /// Ours: frames the encoder refused (not sent).
    public var encodeFailures = 0
    /// Ours: packets the network side never got because the send queue was full.
    public var packetsDroppedQueueFull = 0

    /// All counters zero.
    public init() {}
}
