// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Collects figures, prints them as a table, and writes them as JSON.
final class Report {
    private(set) var figures: [BenchmarkFigure] = []
    private var printedGroups: Set<String> = []

    /// Records a Swift-vs-baseline comparison as two figures: time and allocations.
    func add(group: String, name: String, unit: String, baseline: String, result: Comparison.Result) {
        add(BenchmarkFigure(group: group, name: name, value: result.ours, unit: unit, baseline: baseline,
                            baselineValue: result.baseline, ratio: result.ratio), quiet: true)
        add(BenchmarkFigure(group: group, name: name + " allocations", value: result.oursAllocationsPerOperation,
                            unit: "allocs/call", baseline: baseline, baselineValue: result.baselineAllocationsPerOperation,
                            ratio: nil), quiet: true)
        printRow(name: name, ours: String(format: "%9.2f", result.ours), baseline: String(format: "%9.2f", result.baseline),
                 ratio: String(format: "%6.3f", result.ratio), unit: unit,
                 allocations: String(format: "%.2f / %.2f", result.oursAllocationsPerOperation, result.baselineAllocationsPerOperation))
    }

    /// Records one figure; prints it unless `quiet`.
    func add(_ figure: BenchmarkFigure, quiet: Bool = false) {
        figures.append(figure)
        guard !quiet else { return }
        printHeaderIfNeeded(figure.group)
        let baselineText = figure.baselineValue.map { String(format: "%9.2f", $0) } ?? "        -"
        let ratioText = figure.ratio.map { String(format: "%6.3f", $0) } ?? "     -"
        printRow(name: figure.name, ours: String(format: "%9.2f", figure.value), baseline: baselineText, ratio: ratioText,
                 unit: figure.unit, allocations: "")
    }

    /// Starts a group's table with its baseline named.
    func beginGroup(_ group: String, baseline: String) {
        print("\n== \(group) (baseline: \(baseline)) ==")
        print(pad("name", 42) + pad("ours", 10) + pad("baseline", 10) + pad("ratio", 8) + pad("unit", 12) + "allocs/call ours / baseline")
        printedGroups.insert(group)
    }

    /// Writes every figure as a JSON array.
    func writeJSON(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(figures).write(to: url)
    }

    private func printHeaderIfNeeded(_ group: String) {
        if !printedGroups.contains(group) { beginGroup(group, baseline: "none") }
    }

    private func printRow(name: String, ours: String, baseline: String, ratio: String, unit: String, allocations: String) {
        print(pad(name, 42) + pad(ours, 10) + pad(baseline, 10) + pad(ratio, 8) + pad(unit, 12) + allocations)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
