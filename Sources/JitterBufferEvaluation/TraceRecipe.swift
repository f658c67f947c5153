// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import NetworkSimulation

/// How one seeded trace is made: a network profile, a seed and a length. The same recipe gives
/// the same packets on every run, so a trace can be committed as a file and checked against
/// the simulator.
public struct TraceRecipe: Sendable {
    /// The trace's name in tables, plots and tests.
    public var name: String
    /// The network.
    public var profile: NetworkProfile
    /// The seed of `TestSupport.SeededGenerator`.
    public var seed: UInt64
    /// Packets sent, one per `JitterTraceCatalog.packetIntervalMs`.
    public var packetCount: Int
    /// Whether the network's statistics stay the same over the trace.
    public var isStationary: Bool

    /// A recipe.
    public init(name: String, profile: NetworkProfile, seed: UInt64, packetCount: Int, isStationary: Bool) {
        self.name = name
        self.profile = profile
        self.seed = seed
        self.packetCount = packetCount
        self.isStationary = isStationary
    }

    /// The trace, from the simulator; `seedOffset` draws another sample of the same network.
    public func generate(seedOffset: UInt64 = 0) -> JitterTrace {
        var generator = SeededGenerator(seed: seed + seedOffset)
        let trace = NetworkSimulator(profile: profile).trace(packetCount: packetCount, packetIntervalMs: JitterTraceCatalog.packetIntervalMs,
                                                             using: &generator)
        return JitterTrace(name: name, trace: trace, isStationary: isStationary)
    }
}
