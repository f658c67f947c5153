import Foundation
import NetworkSimulation
import Testing
import TestSupport

/// The traces in `vectors/traces/` parse, and the simulator still produces them: the recipes
/// here are those of `Benchmarks/JitterTraceCatalog.swift` (`scripts/make-traces`). If the
/// simulator changes on purpose, regenerate the files with that script.
@Suite struct CommittedTraceTests {
    @Test func committedTracesParse() throws {
        let directory = VectorFiles.url("traces")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".csv") }
        #expect(names.count >= 4)
        for name in names {
            let trace = try NetworkTrace(contentsOf: directory.appendingPathComponent(name))
            #expect(trace.packets.count == 3_000, "\(name)")
        }
    }

    @Test(arguments: [
        ("g1050-class-c-60s.csv", NetworkProfile.classC, UInt64(1_002)),
        ("g1050-class-e-60s.csv", NetworkProfile.classE, UInt64(1_004)),
        ("class-c-spikes-60s.csv", NetworkProfile.classC.withDelaySpikes(perMinute: 3, durationMs: 300...1_000), UInt64(2_007)),
        ("class-c-drift-1000ppm-60s.csv", NetworkProfile.classC.withClockDrift(ppm: 1_000), UInt64(3_000)),
    ])
    func simulatorReproducesTheCommittedTrace(file: String, profile: NetworkProfile, seed: UInt64) throws {
        let committed = try NetworkTrace(contentsOf: VectorFiles.url("traces/" + file))
        var generator = SeededGenerator(seed: seed)
        let generated = NetworkSimulator(profile: profile).trace(packetCount: 3_000, packetIntervalMs: 20, using: &generator)
        #expect(try NetworkTrace(csv: generated.csv) == committed)
    }
}
