// SPDX-License-Identifier: Apache-2.0
/// The per-trace figures of one buffer (fractions, not percent).
public struct PlayoutSummary: Sendable, Equatable {
    /// Mean send→play delay of the packets played, in ms.
    public var meanDelayMs: Double
    /// 95th percentile of that delay, in ms.
    public var p95DelayMs: Double
    /// Received packets never played / received packets.
    public var lateLoss: Double
    /// Received packets neither played nor rebuilt from the next packet's FEC / received
    /// packets: late loss as the listener hears it when FEC recovery counts.
    public var lateLossCreditingFEC: Double
    /// Concealed ticks / active ticks.
    public var concealed: Double
    /// CPU per 20 ms tick in µs (buffer and Opus decode or concealment; wall clock, so noisy).
    public var microsecondsPerTick: Double
}
