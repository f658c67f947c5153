// `swift run -c release benchmarks [group…] [--rounds N] [--json PATH]`
// Groups: opus, srtp (all when none is named). Every row is ours against its baseline,
// measured in the same run in interleaved rounds; the median is reported.
#if canImport(Glibc)
import Glibc
#endif

let availableGroups = ["opus", "srtp"]
var groups: [String] = []
var jsonPath: String? = nil
var rounds = 9
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--json":
        guard let path = arguments.popFirst() else { fputs("--json needs a path\n", stderr); exit(2) }
        jsonPath = path
    case "--rounds":
        guard let text = arguments.popFirst(), let value = Int(text), value >= 5 else { fputs("--rounds needs a number ≥ 5\n", stderr); exit(2) }
        rounds = value
    case _ where availableGroups.contains(argument):
        groups.append(argument)
    default:
        fputs("unknown argument \(argument); groups: \(availableGroups.joined(separator: ", "))\n", stderr)
        exit(2)
    }
}
if groups.isEmpty { groups = availableGroups }

#if DEBUG
print("warning: a debug build; run `swift run -c release benchmarks` for figures worth quoting")
#endif
let report = Report()
let comparison = Comparison(rounds: rounds)
do {
    for group in groups {
        switch group {
        case "opus": try OpusBenchmarks(comparison: comparison, report: report).run()
        case "srtp": try SRTPBenchmarks(comparison: comparison, report: report).run()
        default: break
        }
    }
    if let jsonPath {
        try report.writeJSON(to: jsonPath)
        print("\nwrote \(report.figures.count) figures to \(jsonPath)")
    }
} catch {
    fputs("benchmarks: \(error)\n", stderr)
    exit(1)
}
