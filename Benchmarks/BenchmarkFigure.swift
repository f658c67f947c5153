// SPDX-License-Identifier: Apache-2.0
/// One measured figure, written one per JSON object with `--json PATH`.
struct BenchmarkFigure: Codable, Sendable {
    /// Benchmark group, e.g. `"opus"`.
    var group: String
    /// What was measured, e.g. `"encode c10 48k 20ms"`.
    var name: String
    /// Our figure (median over rounds).
    var value: Double
    /// Unit of `value` and `baselineValue`, e.g. `"us/frame"`.
    var unit: String
    /// What the baseline is, e.g. `"libopus from C"`; nil when the figure has none.
    var baseline: String?
    /// The baseline's figure from the same run.
    var baselineValue: Double?
    /// `value / baselineValue`.
    var ratio: Double?
}
