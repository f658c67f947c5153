/// The per-trace figures of one buffer (fractions, not percent).
struct PlayoutSummary {
    var meanDelayMs: Double
    var p95DelayMs: Double
    /// Received packets never played / received packets.
    var lateLoss: Double
    /// Concealed ticks / active ticks.
    var concealed: Double
    var microsecondsPerTick: Double
}
