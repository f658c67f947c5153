// SPDX-License-Identifier: Apache-2.0
import Foundation
import NetworkSimulation
import TestSupport

/// The seeded traces: the `jitter` benchmark's (ITU-T G.1050 classes A–F, a delay-spike trace,
/// a clock-drift trace, two heavy-tailed anchors) and the short ones the tests replay. Every
/// recipe is here once; `scripts/make-traces` writes the committed ones to `vectors/traces/`,
/// and a test checks that the simulator still produces those files.
public enum JitterTraceCatalog {
    /// 60 s of 20 ms packets: the benchmark's traces.
    public static let packetCount = 3_000
    /// 20 s of 20 ms packets: the tests' traces (long enough for the target to settle after
    /// the first second and for the network's tail to show, short enough to replay in a test).
    public static let shortPacketCount = 1_000
    /// Packet interval in milliseconds.
    public static let packetIntervalMs = 20.0

    /// The spike trace's name.
    public static let spikesName = "spikes"
    /// The spike trace: class C with three 300–1000 ms stalls per minute on average, then a
    /// burst of the held packets (Wi-Fi or LTE handover).
    public static let spikeProfile = NetworkProfile.classC.withDelaySpikes(perMinute: 3, durationMs: 300...1_000)
    /// The drift trace: class C with the receiver's clock 1000 ppm fast (arrivals drift 60 ms
    /// later over the minute; the buffer drains unless it stretches).
    public static let driftProfile = NetworkProfile.classC.withClockDrift(ppm: 1_000)

    /// Two heavy-tailed networks beside the G.1050 classes: 40 ms base, 1 % isolated loss, and
    /// Pareto jitter with tail index 2.5 (finite variance) and 1.5 (infinite variance), where a
    /// target chasing the tail costs the most delay. 10 minutes each, so the tail, not the
    /// draw, decides the figures.
    public static let anchorProfiles: [NetworkProfile] = [
        NetworkProfile(name: "anchor-pareto2.5-5ms", baseDelayMs: 40...40,
                       loss: GilbertElliottLoss(lossRate: 0.01, meanBurstPackets: 1), jitter: ParetoJitter(shape: 2.5, scaleMs: 5)),
        NetworkProfile(name: "anchor-pareto1.5-10ms", baseDelayMs: 40...40,
                       loss: GilbertElliottLoss(lossRate: 0.01, meanBurstPackets: 1), jitter: ParetoJitter(shape: 1.5, scaleMs: 10)),
    ]

    /// The benchmark's recipes, in table order. Seed 2007 gives the spike trace's minute three
    /// stalls (606, 764 and 985 ms), the profile's mean rate.
    public static func benchmarkRecipes(includeAnchors: Bool = true) -> [TraceRecipe] {
        var recipes = NetworkProfile.g1050Classes.prefix(6).enumerated().map { index, profile in
            TraceRecipe(name: "class-\(profile.name)", profile: profile, seed: 1_000 + UInt64(index), packetCount: packetCount,
                        isStationary: true)
        }
        recipes.append(TraceRecipe(name: spikesName, profile: spikeProfile, seed: 2_007, packetCount: packetCount, isStationary: false))
        recipes.append(TraceRecipe(name: "drift", profile: driftProfile, seed: 3_000, packetCount: packetCount, isStationary: false))
        if includeAnchors {
            for (index, profile) in anchorProfiles.enumerated() {
                recipes.append(TraceRecipe(name: profile.name, profile: profile, seed: 4_000 + UInt64(index), packetCount: 30_000,
                                           isStationary: true))
            }
        }
        return recipes
    }

    /// The benchmark's traces, in table order. `seedOffset` draws another sample of the same
    /// networks (0: the committed traces and docs/performance.md's table).
    public static func standard(includeAnchors: Bool = true, seedOffset: UInt64 = 0) -> [JitterTrace] {
        benchmarkRecipes(includeAnchors: includeAnchors).map { $0.generate(seedOffset: seedOffset) }
    }

    /// The tests' short traces: 20 s of G.1050 classes B, C and D.
    public static let shortRecipes: [TraceRecipe] = [
        TraceRecipe(name: "class-B-20s", profile: .classB, seed: 5_001, packetCount: shortPacketCount, isStationary: true),
        TraceRecipe(name: "class-C-20s", profile: .classC, seed: 5_002, packetCount: shortPacketCount, isStationary: true),
        TraceRecipe(name: "class-D-20s", profile: .classD, seed: 5_003, packetCount: shortPacketCount, isStationary: true),
    ]

    /// The committed traces: file name in `vectors/traces/` and recipe.
    public static var committed: [(file: String, recipe: TraceRecipe)] {
        let benchmark = Dictionary(uniqueKeysWithValues: benchmarkRecipes(includeAnchors: false).map { ($0.name, $0) })
        return [
            ("g1050-class-c-60s.csv", benchmark["class-C"]!),
            ("g1050-class-e-60s.csv", benchmark["class-E"]!),
            ("class-c-spikes-60s.csv", benchmark[spikesName]!),
            ("class-c-drift-1000ppm-60s.csv", benchmark["drift"]!),
        ] + shortRecipes.map { ("g1050-\($0.name.lowercased()).csv", $0) }
    }

    /// The committed trace of `recipe`, read from `vectors/traces/`.
    public static func load(_ recipe: TraceRecipe) throws -> JitterTrace {
        guard let file = committed.first(where: { $0.recipe.name == recipe.name })?.file else {
            throw JitterBufferEvaluationError.traceNotCommitted(recipe.name)
        }
        return JitterTrace(name: recipe.name, trace: try NetworkTrace(contentsOf: VectorFiles.url("traces/" + file)),
                           isStationary: recipe.isStationary)
    }

    /// Writes every committed trace into `directory`.
    public static func write(to directory: String) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (file, recipe) in committed {
            let trace = recipe.generate().trace
            try trace.write(to: url.appendingPathComponent(file))
            print("wrote \(directory)/\(file): \(trace.packets.count) packets, \(String(format: "%.2f", trace.lossRate * 100))% lost")
        }
    }
}
