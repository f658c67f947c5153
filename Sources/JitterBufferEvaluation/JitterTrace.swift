// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation

/// A named network trace to replay into jitter buffers.
public struct JitterTrace: Sendable {
    /// Short name used in tables, figures and plot file names.
    public var name: String
    /// The packets' send and arrival times.
    public var trace: NetworkTrace
    /// Whether the network's statistics do not change over the trace (the ≤ 1.15 × oracle
    /// target applies); false for spikes, drift and traces read from files.
    public var isStationary: Bool

    /// A named trace.
    public init(name: String, trace: NetworkTrace, isStationary: Bool) {
        self.name = name
        self.trace = trace
        self.isStationary = isStationary
    }
}
