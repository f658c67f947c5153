// SPDX-License-Identifier: Apache-2.0
// `swift run -c release benchmarks [group…] [--rounds N] [--only ROW]… [--json PATH]` (listening: --only NETWORK)
//   jitter options: [--trace FILE]… [--plot DIR] [--write-traces DIR] [--seed-offset N] [--tick-ms 20|10|5]
//   quality and listening options: [--seeds N] [--seed-offset N] [--python PATH]; listening: [--no-gstreamer] [--ptime 20|10] [--tick-ms 20|10|5] [--arrivals-at-ticks];
//   processing: [--python PATH]
//   soak options: [--minutes N] (240 by default); alsa-soak: [--minutes N] (3) [--device PCM] (pulse)
// Groups: opus, codecs, srtp, dtls, jitter, aec, call, engine, directory (all of these when none is named);
// codec-quality, only when named: G.711/G.722 concealment under loss and the codecs beside GStreamer's,
// scored with PESQ (NB for G.711, WB for G.722; [--seeds N] [--python PATH]); quality, which
// runs only when named (`make quality`): it scores speech with PESQ from PyPI, so it needs Python
// and, on first use, pip to install `pesq` (scripts/pesq-venv does, into .build/pesq-venv); listening, only
// when named, for the same reason: our playout of the same packets beside libopus and the fixed-delay oracle;
// processing, only when named, for the same reason: voice processing's cost to the talker's own speech; and
// soak, only when named: a 4-hour call on the virtual clock, a few minutes of wall time; and
// alsa-soak, only when named: minutes of a call on a real device (the PulseAudio loopback).
// Every row is ours against its baseline, measured in the same run (in interleaved rounds for
// the timed groups; the median is reported).
import Foundation
import JitterBufferEvaluation

/// Prints `message` on standard error and exits with `status`.
func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

let availableGroups = ["opus", "codecs", "codec-quality", "srtp", "dtls", "jitter", "aec", "call", "engine", "directory", "quality", "listening", "processing", "soak",
                       "alsa-soak"]
/// The groups run when none is named: every group that needs nothing beyond this package.
let defaultGroups = availableGroups.filter { !["codec-quality", "quality", "listening", "processing", "soak", "alsa-soak"].contains($0) }
var groups: [String] = []
var jsonPath: String? = nil
var rounds = 15
var onlyRows: Set<String> = []
var traceFiles: [String] = []
var plotDirectory: String? = nil
var writeTracesDirectory: String? = nil
var seedOffset: UInt64 = 0
var seeds: Int? = nil
var python: String? = nil
var withGStreamer = true
var playoutTickMs: Int? = nil
var packetTimeMs = 20
var arrivalsAtTicks = false
var soakMinutes: Double? = nil
var soakDevice = "pulse"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--json":
        guard let path = arguments.popFirst() else { fail("--json needs a path") }
        jsonPath = path
    case "--rounds":
        guard let text = arguments.popFirst(), let value = Int(text), value >= 5 else { fail("--rounds needs a number ≥ 5") }
        rounds = value
    case "--only":
        guard let name = arguments.popFirst() else { fail("--only needs a row name") }
        onlyRows.insert(name)
    case "--trace":
        guard let path = arguments.popFirst() else { fail("--trace needs a CSV file") }
        traceFiles.append(path)
    case "--plot":
        guard let path = arguments.popFirst() else { fail("--plot needs a directory") }
        plotDirectory = path
    case "--write-traces":
        guard let path = arguments.popFirst() else { fail("--write-traces needs a directory") }
        writeTracesDirectory = path
    case "--seed-offset":
        guard let text = arguments.popFirst(), let value = UInt64(text) else { fail("--seed-offset needs a non-negative number") }
        seedOffset = value
    case "--seeds":
        guard let text = arguments.popFirst(), let value = Int(text), (1...100).contains(value) else { fail("--seeds needs a number 1–100") }
        seeds = value
    case "--minutes":
        guard let text = arguments.popFirst(), let value = Double(text), (1...1_440).contains(value) else { fail("--minutes needs a number 1–1440") }
        soakMinutes = value
    case "--device":
        guard let name = arguments.popFirst() else { fail("--device needs an ALSA PCM name") }
        soakDevice = name
    case "--no-gstreamer":
        withGStreamer = false
    case "--tick-ms":
        guard let text = arguments.popFirst(), let value = Int(text), [20, 10, 5].contains(value) else { fail("--tick-ms needs 20, 10 or 5") }
        playoutTickMs = value
    case "--ptime":
        guard let text = arguments.popFirst(), let value = Int(text), [20, 10].contains(value) else { fail("--ptime needs 20 or 10") }
        packetTimeMs = value
    case "--arrivals-at-ticks":
        arrivalsAtTicks = true
    case "--python":
        guard let path = arguments.popFirst() else { fail("--python needs the path of a Python with pesq and numpy") }
        python = path
    case _ where availableGroups.contains(argument):
        groups.append(argument)
    default:
        fail("unknown argument \(argument); groups: \(availableGroups.joined(separator: ", "))")
    }
}
if groups.isEmpty { groups = defaultGroups }
if packetTimeMs != 20 && groups != ["listening"] { fail("--ptime is the listening group's alone (the others play 20 ms packets)") }
if let playoutTickMs, playoutTickMs > packetTimeMs {
    fail("--tick-ms \(playoutTickMs) is longer than a \(packetTimeMs) ms packet: a tick plays a frame or a device period within it")
}

#if DEBUG
print("warning: a debug build; run `swift run -c release benchmarks` for figures worth quoting")
#endif
if let writeTracesDirectory {
    do { try JitterTraceCatalog.write(to: writeTracesDirectory) } catch { fail("benchmarks: \(error)", status: 1) }
    exit(0)
}
let report = Report()
let comparison = Comparison(rounds: rounds, onlyRows: onlyRows)
do {
    for group in groups {
        switch group {
        case "opus": try OpusBenchmarks(comparison: comparison, report: report).run()
        case "codecs": try CodecBenchmarks(comparison: comparison, report: report).run()
        case "codec-quality": try CodecQualityBenchmarks(report: report, seeds: seeds ?? 3, python: python).run()
        case "srtp": try SRTPBenchmarks(comparison: comparison, report: report).run()
        case "dtls": try DTLSBenchmarks(comparison: comparison, report: report).run()
        case "aec": try AECBenchmarks(comparison: comparison, report: report).run()
        case "call": try CallBenchmarks(comparison: comparison, report: report).run()
        case "engine": try EngineBenchmarks(report: report).run()
        case "directory": try DirectoryBenchmarks(report: report).run()
        case "soak": try SoakBenchmarks(report: report, minutes: soakMinutes ?? 240).run()
        case "alsa-soak": try ALSASoakBenchmarks(report: report, minutes: soakMinutes ?? 3, device: soakDevice).run()
        case "quality":
            try QualityBenchmarks(report: report, seeds: seeds ?? 4, seedOffset: seedOffset, python: python).run()
        case "listening":
            try ListeningBenchmarks(report: report, seeds: seeds ?? 1, seedOffset: seedOffset, python: python,
                                    onlyNetworks: onlyRows, withGStreamer: withGStreamer, packetTimeMs: packetTimeMs,
                                    tickMs: playoutTickMs ?? packetTimeMs, arrivalsAtTicks: arrivalsAtTicks).run()
        case "processing":
            try ProcessingBenchmarks(report: report, python: python).run()
        case "jitter":
            try JitterBenchmarks(report: report, traceFiles: traceFiles, plotDirectory: plotDirectory, seedOffset: seedOffset,
                                 tickMs: playoutTickMs ?? 20).run()
        default: break
        }
    }
    if let jsonPath {
        try report.writeJSON(to: jsonPath)
        print("\nwrote \(report.figures.count) figures to \(jsonPath)")
    }
} catch {
    fail("benchmarks: \(error)", status: 1)
}
