import NetworkSimulation

/// A named network trace replayed by the `jitter` group.
struct JitterTrace {
    /// Short name used in the table, figures and plot file names.
    var name: String
    /// The packets' send and arrival times.
    var trace: NetworkTrace
    /// Whether the network's statistics do not change over the trace (the ≤ 1.15 × oracle
    /// target applies); false for spikes, drift and files given with `--trace`.
    var isStationary: Bool
}
