// SPDX-License-Identifier: Apache-2.0
/// The least mouth-to-ear delay a call of one configuration can have: the parts no buffering
/// decision can remove. A sample spoken waits on average half a capture period for its period
/// to end; its frame is complete only a frame after the frame's first sample; the encoder
/// looks ahead (libopus's `OPUS_GET_LOOKAHEAD`: 6.5 ms in VoIP mode); the packet crosses the
/// network (one way); the receiver holds a jitter margin the network's jitter asks for; and the
/// sample leaves the loudspeaker after one playback period in the device. Everything a
/// measured mouth-to-ear delay holds above this sum is buffering of the engine's own.
public struct MouthToEarFloor: Sendable, Equatable {
    /// Half a capture period, ms: the mean wait of a sample for the end of its period.
    public var captureMs: Double
    /// The codec frame (ptime), ms.
    public var frameMs: Double
    /// The encoder's look-ahead, ms.
    public var codecLookaheadMs: Double
    /// The network's one-way delay, ms (half the measured round trip).
    public var networkMs: Double
    /// The jitter margin the network needs, ms (its measured interarrival jitter, RFC 3550).
    public var jitterMarginMs: Double
    /// One playback period, ms.
    public var playbackMs: Double

    /// The floor of a configuration: device period `periodMs`, frames of `frameMs`, encoder
    /// look-ahead `codecLookaheadMs`, and the network as measured (one way and jitter, ms;
    /// negative or non-finite measurements count as 0).
    public init(periodMs: Double, frameMs: Double, codecLookaheadMs: Double, networkMs: Double = 0, jitterMarginMs: Double = 0) {
        func measured(_ value: Double) -> Double { value.isFinite ? max(value, 0) : 0 }
        captureMs = measured(periodMs) / 2
        self.frameMs = measured(frameMs)
        self.codecLookaheadMs = measured(codecLookaheadMs)
        self.networkMs = measured(networkMs)
        self.jitterMarginMs = measured(jitterMarginMs)
        playbackMs = measured(periodMs)
    }

    /// The parts that depend on the configuration alone (the network left out), ms.
    public var configurationMs: Double { captureMs + frameMs + codecLookaheadMs + playbackMs }

    /// The whole floor, ms.
    public var totalMs: Double { configurationMs + networkMs + jitterMarginMs }
}
