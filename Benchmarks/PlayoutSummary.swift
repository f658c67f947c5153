/// The per-trace figures of one buffer (fractions, not percent).
struct PlayoutSummary {
    var meanDelayMs: Double
    var p95DelayMs: Double
    /// Received packets never played / received packets.
    var lateLoss: Double
    /// Received packets neither played nor rebuilt from the next packet's FEC / received
    /// packets: late loss as the listener hears it when FEC recovery counts.
    var lateLossCreditingFEC: Double
    /// Concealed ticks / active ticks.
    var concealed: Double
    var microsecondsPerTick: Double
}
