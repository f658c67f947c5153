// SPDX-License-Identifier: Apache-2.0
import AudioCodecs

/// Settings of an `AdaptiveJitterBuffer`. All delays are in milliseconds of playout time.
public struct JitterBufferConfiguration: Sendable, Equatable {
    /// Output sample rate in Hz (Opus: 8, 12, 16, 24 or 48 kHz, as it decodes; G.711 and G.722
    /// decode at their own rate and are resampled to any whole kHz from 8 to 48).
    public var sampleRate = 48_000
    /// The codec of the stream played (its decoder, concealment and RTP clock rate).
    public var codec = AudioCodec.opus
    /// The codec of each payload type the sender may use (an answer may list several, and the
    /// sender may switch among them: RFC 3264 §5.1). Empty: every packet is `codec`, whatever
    /// its payload type. Otherwise `codec` must be one of them (it plays first) and a packet of
    /// an unlisted payload type is discarded. A switch continues the stream without a gap: on
    /// one RTP clock (G.711 and G.722 all run at 8 kHz) by timestamp, onto another (Opus's
    /// 48 kHz) by sequence number.
    public var payloadTypes: [UInt8: AudioCodec] = [:]
    /// Duration of one playout tick and of the sender's packets, in milliseconds (10, 20, 40 or 60).
    public var frameDurationMs = 20
    /// Lowest target delay the buffer may choose.
    public var minimumDelayMs = 0
    /// Highest target delay the buffer may choose.
    public var maximumDelayMs = 1_000
    /// Target delay over the first 10 packets, and the lowest the estimate may set until 50
    /// have arrived (about 1 s): the first packets may raise the target, not yet lower it.
    /// 100 ms: on a jittery path the first words are played on time instead of stretched
    /// toward a higher target, and on a clean one the extra delay goes in the first pauses
    /// (measured against 20, 40, 60 and 80: `benchmarks quality`'s first pass against 60
    /// clean 3.86 → 3.97, B 3.21 → 3.54, C 2.98 → 3.11, A–F otherwise ±0.04; `benchmarks
    /// listening` C, 40 ms jitter +0.10, D–F +0.04 to +0.05, the rest ±0.01; 20 and 40 lost
    /// 0.1–0.4 on A–C).
    public var initialDelayMs = 100
    /// What a call on the same path learnt (`AdaptiveJitterBuffer.learntDelays`), to start
    /// from: a target above `initialDelayMs` holds from the first packet; one below it is
    /// reached as the buffer's own estimate would be (from 50 packets on). nil (the default):
    /// the buffer learns the path from its own packets.
    public var learntDelays: LearntDelays?
    /// Packets the store holds; a packet further ahead than this flushes the store.
    public var capacityPackets = 256
    /// What to do when the packet due next is missing but later ones are stored.
    public var latePacketPolicy = LatePacketPolicy.recoverFromFECFirst
    /// What the target delay weighs: the E-model's price of delay (given the rest of the
    /// call's mouth-to-ear delay) against the codec's price of late packets.
    public var delayPricing = PlayoutDelayPricing()
    /// Whether playout may stretch or squeeze time (accelerate, preemptive expand) to follow
    /// the target. Off, the delay only grows (by waiting for late packets) and never shrinks:
    /// the listening benchmark's "no time-scaling" variant, and a receiver for tests.
    public var allowsTimeStretching = true

    /// The defaults: 48 kHz, 20 ms, 0–1000 ms delay starting at 60 ms, 256 packets, FEC first,
    /// the target priced for Opus at 24 kb/s with 66.5 ms outside the buffer, time-stretching on.
    public init() {}
}
