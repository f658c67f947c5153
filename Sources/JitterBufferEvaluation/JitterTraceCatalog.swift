import Foundation
import NetworkSimulation
import TestSupport

/// The traces of the `jitter` group: classes A–F, a delay-spike trace, a clock-drift trace,
/// and the two anchor traces of REFERENCE.md; all seeded, so every run replays the same
/// packets. `scripts/make-traces` writes the committed ones to `vectors/traces/`.
public enum JitterTraceCatalog {
    /// 60 s of 20 ms packets.
    public static let packetCount = 3_000
    /// Packet interval in milliseconds.
    public static let packetIntervalMs = 20.0

    /// The spike trace: class C with three 300–1000 ms stalls per minute on average.
    public static let spikeProfile = NetworkProfile.classC.withDelaySpikes(perMinute: 3, durationMs: 300...1_000)
    /// The spike trace's name.
    public static let spikesName = "spikes"
    /// The drift trace: class C with the receiver's clock 1000 ppm fast (arrivals drift 60 ms
    /// later over the minute; the buffer drains unless it stretches).
    public static let driftProfile = NetworkProfile.classC.withClockDrift(ppm: 1_000)

    /// REFERENCE.md's anchor networks: 40 ms base, 1% loss, Pareto jitter, 10 minutes.
    public static let anchorProfiles: [NetworkProfile] = [
        NetworkProfile(name: "anchor-pareto2.5-5ms", baseDelayMs: 40...40,
                       loss: GilbertElliottLoss(lossRate: 0.01, meanBurstPackets: 1), jitter: ParetoJitter(shape: 2.5, scaleMs: 5)),
        NetworkProfile(name: "anchor-pareto1.5-10ms", baseDelayMs: 40...40,
                       loss: GilbertElliottLoss(lossRate: 0.01, meanBurstPackets: 1), jitter: ParetoJitter(shape: 1.5, scaleMs: 10)),
    ]

    /// Generates one trace of `profile` from a seed.
    public static func generate(_ profile: NetworkProfile, seed: UInt64, packetCount: Int = packetCount) -> NetworkTrace {
        var generator = SeededGenerator(seed: seed)
        return NetworkSimulator(profile: profile).trace(packetCount: packetCount, packetIntervalMs: packetIntervalMs, using: &generator)
    }

    /// The generated traces, in table order. `seedOffset` draws another sample of the same
    /// networks (0: the committed traces and the README's table).
    public static func standard(includeAnchors: Bool = true, seedOffset: UInt64 = 0) -> [JitterTrace] {
        var traces: [JitterTrace] = []
        for (index, profile) in NetworkProfile.g1050Classes.prefix(6).enumerated() {
            traces.append(JitterTrace(name: "class-\(profile.name)", trace: generate(profile, seed: 1_000 + seedOffset + UInt64(index)),
                                      isStationary: true))
        }
        // Seed 2007 of 2000–2011 gives the minute three stalls (606, 764 and 985 ms); seed 2000
        // gave only one.
        traces.append(JitterTrace(name: spikesName, trace: generate(spikeProfile, seed: 2_007 + seedOffset), isStationary: false))
        traces.append(JitterTrace(name: "drift", trace: generate(driftProfile, seed: 3_000 + seedOffset), isStationary: false))
        if includeAnchors {
            for (index, profile) in anchorProfiles.enumerated() {
                traces.append(JitterTrace(name: profile.name, trace: generate(profile, seed: 4_000 + seedOffset + UInt64(index),
                                                                                 packetCount: 30_000),
                                          isStationary: true))
            }
        }
        return traces
    }

    /// The committed traces: file name in `vectors/traces/` and the trace.
    public static func committed() -> [(file: String, trace: NetworkTrace)] {
        let byName = Dictionary(uniqueKeysWithValues: standard(includeAnchors: false).map { ($0.name, $0.trace) })
        return [
            ("g1050-class-c-60s.csv", byName["class-C"]!),
            ("g1050-class-e-60s.csv", byName["class-E"]!),
            ("class-c-spikes-60s.csv", byName["spikes"]!),
            ("class-c-drift-1000ppm-60s.csv", byName["drift"]!),
        ]
    }

    /// Writes ``committed()`` into `directory`.
    public static func write(to directory: String) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        for (file, trace) in committed() {
            try trace.write(to: url.appendingPathComponent(file))
            print("wrote \(directory)/\(file): \(trace.packets.count) packets, \(String(format: "%.2f", trace.lossRate * 100))% lost")
        }
    }
}
