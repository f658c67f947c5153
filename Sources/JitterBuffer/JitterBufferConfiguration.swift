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
    /// 150 ms: on a jittery path the first words are played on time instead of waited and
    /// stretched toward a higher target as its tail shows, and on a clean one the extra delay
    /// goes in the first pauses (`AdaptiveJitterBuffer.startUpPauseOnlyMs`). Against 100 (and
    /// 120, 200), same session: `benchmarks quality`'s first pass clean 4.04 → 4.06, A 3.77 →
    /// 3.81, C 3.38 → 3.64 (120: 3.55), D 2.99 → 3.23 (3.10), E 2.51 → 2.65, F 2.29 → 2.38, the
    /// scored pass the same but for one pair's PESQ alignment (docs/performance.md, stop 55);
    /// `benchmarks listening` (12 seeds) 3.018 → 3.035, the engine's way (10 ms ticks) 3.081 →
    /// 3.105, no row lower by more than 0.02, the
    /// mean delay 1–8 ms higher; `voicecall demo --fast`, Alice → Bob (who speaks first) 3.18 →
    /// 3.22. 200 lost 0.4 on a clean first pass (its descent is too long for the first pauses);
    /// before the start-up rule 100 had been measured against 20–80 and 200–300
    /// (docs/performance.md). The first packets' lateness may raise it before playout begins
    /// (three times the most one lagged the fastest before it: `StartUpLateness`).
    public var initialDelayMs = 150
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
