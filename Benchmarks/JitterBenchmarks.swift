import Foundation
import Transport

/// Jitter buffers on the same network traces: (a) ours, `JitterBuffer.AdaptiveJitterBuffer`
/// (when built in, see ``AdaptiveJitterBufferReplay``), (b) speexdsp's jitter buffer, (c) the
/// fixed-delay oracle at the late loss ours reached, and also at speex's (so speex's own
/// distance from the optimum shows, as in REFERENCE.md's anchors).
///
/// Per trace: mean and 95th percentile send→play delay, late loss (received but never
/// played), concealed ticks, CPU per 20 ms tick (buffer + Opus decode/PLC), and the ratios to
/// speex and to the oracle. `--plot DIR` writes one SVG per trace.
struct JitterBenchmarks {
    static let group = "jitter"

    let report: Report
    /// CSV traces given with `--trace`, replayed after the generated ones.
    var traceFiles: [String] = []
    /// Where `--plot` writes the SVGs, if given.
    var plotDirectory: String? = nil
    /// `--seed-offset`: another draw of the generated traces (0: the README's table).
    var seedOffset: UInt64 = 0

    func run() throws {
        let stream = try OpusPacketStream()
        var traces = JitterTraceCatalog.standard(seedOffset: seedOffset)
        for path in traceFiles {
            let url = URL(fileURLWithPath: path)
            traces.append(JitterTrace(name: url.deletingPathExtension().lastPathComponent, trace: try NetworkTrace(contentsOf: url),
                                      isStationary: false))
        }
        let ours = AdaptiveJitterBufferReplay.isAvailable ? "" : "; ours not built in (-Xswiftc -DVOICEENGINE_ADAPTIVE_JITTER_BUFFER)"
        print("\n== \(Self.group) (baselines: speexdsp 1.2.1 jitter buffer; fixed-delay oracle at the same late loss\(ours)) ==")
        print("* = not stationary; oracle@X = the fixed delay D with X's late loss; concealed = ticks without a new packet")
        print(row("trace", "buffer", "mean ms", "p95 ms", "late %", "concealed %", "us/tick", "mean/oracle", "mean/speex", "targets"))
        var met = 0
        for entry in traces where try replay(entry, stream: stream) { met += 1 }
        print("issue targets met on \(met) of \(traces.count) traces (seed offset \(seedOffset))")
    }

    /// Replays one trace into every buffer and prints its rows; returns whether ours met the
    /// issue's targets on it (false when ours is not built in).
    private func replay(_ entry: JitterTrace, stream: OpusPacketStream) throws -> Bool {
        let trace = entry.trace
        let speexRun = try SpeexJitterBaseline.replay(trace, stream: stream)
        let oursRun = try AdaptiveJitterBufferReplay.replay(trace, stream: stream)
        let speex = speexRun.summary(trace)
        let ours = oursRun?.summary(trace)
        let speexOracle = FixedDelayOracle(trace: trace, lateLoss: speex.lateLoss)
        let oracle = ours.map { FixedDelayOracle(trace: trace, lateLoss: $0.lateLoss) } ?? speexOracle

        let name = entry.name + (entry.isStationary ? "" : " *")
        var isMet = false
        print(row(name, "speex", ms(speex.meanDelayMs), ms(speex.p95DelayMs), percent(speex.lateLoss), percent(speex.concealed),
                  ms(speex.microsecondsPerTick), ratio(speex.meanDelayMs / speexOracle.delayMs), "", ""))
        print(row("", "oracle@speex", ms(speexOracle.delayMs), ms(speexOracle.delayMs), percent(speexOracle.lateLoss),
                  percent(speexOracle.concealed), "", "", "", ""))
        if let ours {
            print(row("", "oracle@ours", ms(oracle.delayMs), ms(oracle.delayMs), percent(oracle.lateLoss), percent(oracle.concealed),
                      "", "", "", ""))
            let oracleLimit = entry.name == "spikes" ? 1.0 : 1.15
            var misses: [String] = []
            if ours.lateLoss > speex.lateLoss { misses.append("late>speex") }
            if ours.meanDelayMs > 0.9 * speex.meanDelayMs { misses.append("mean>0.9×speex") }
            if (entry.isStationary || entry.name == "spikes") && ours.meanDelayMs > oracleLimit * oracle.delayMs {
                misses.append("mean>\(oracleLimit)×oracle")
            }
            print(row("", "ours", ms(ours.meanDelayMs), ms(ours.p95DelayMs), percent(ours.lateLoss), percent(ours.concealed),
                      ms(ours.microsecondsPerTick), ratio(ours.meanDelayMs / oracle.delayMs), ratio(ours.meanDelayMs / speex.meanDelayMs),
                      misses.isEmpty ? "met" : misses.joined(separator: " ")))
            isMet = misses.isEmpty
            // The same run with FEC recovery credited (a packet rebuilt from the next packet's
            // FEC counts as played): what the listener gets, but a baseline without FEC.
            let creditedMet = ours.lateLossCreditingFEC <= speex.lateLoss && ours.meanDelayMs <= 0.9 * speex.meanDelayMs
            print(row("", "ours, FEC credited", "", "", percent(ours.lateLossCreditingFEC), "", "", "", "",
                      creditedMet ? "met vs speex" : "not met vs speex"))
        }
        record(entry.name, speex: speex, ours: ours, speexOracle: speexOracle, oracle: oracle)

        if let plotDirectory {
            var series = [DelayPlot.series("speexdsp playout", color: "#ff7f0e", run: speexRun, trace: trace)]
            if let oursRun { series.append(DelayPlot.series("ours playout", color: "#1f77b4", run: oursRun, trace: trace)) }
            let plot = DelayPlot(
                title: "\(entry.name): network delay and playout delay", trace: trace, series: series,
                oracle: (oracle.delayMs, String(format: "oracle %.0f ms (%.2f%% late, ", oracle.delayMs, oracle.lateLoss * 100)
                                         + (ours == nil ? "as speex)" : "as ours)")))
            try plot.write(to: plotDirectory, name: "jitter-" + entry.name)
        }
        return isMet
    }

    /// Figures for `--json`: ours against speex and the oracle when built in; speex against
    /// the oracle always.
    private func record(_ name: String, speex: PlayoutSummary, ours: PlayoutSummary?, speexOracle: FixedDelayOracle,
                        oracle: FixedDelayOracle) {
        let group = Self.group
        func add(_ figure: String, _ value: Double, _ unit: String, _ baseline: String?, _ baselineValue: Double?) {
            report.add(BenchmarkFigure(group: group, name: "\(name) \(figure)", value: value, unit: unit, baseline: baseline,
                                       baselineValue: baselineValue, ratio: baselineValue.map { value / $0 }), quiet: true)
        }
        add("speex mean delay", speex.meanDelayMs, "ms", "fixed-delay oracle", speexOracle.delayMs)
        add("speex late loss", speex.lateLoss * 100, "%", nil, nil)
        guard let ours else { return }
        add("mean delay", ours.meanDelayMs, "ms", "speexdsp jitter buffer", speex.meanDelayMs)
        add("p95 delay", ours.p95DelayMs, "ms", "speexdsp jitter buffer", speex.p95DelayMs)
        add("late loss", ours.lateLoss * 100, "%", "speexdsp jitter buffer", speex.lateLoss * 100)
        add("late loss with FEC credited", ours.lateLossCreditingFEC * 100, "%", "speexdsp jitter buffer", speex.lateLoss * 100)
        add("concealed", ours.concealed * 100, "%", "speexdsp jitter buffer", speex.concealed * 100)
        add("mean delay vs oracle", ours.meanDelayMs, "ms", "fixed-delay oracle", oracle.delayMs)
        add("cpu per tick", ours.microsecondsPerTick, "us/tick", "speexdsp jitter buffer + Opus", speex.microsecondsPerTick)
    }

    private func row(_ columns: String...) -> String {
        let widths = [24, 13, 9, 9, 8, 12, 9, 12, 11, 0]
        return zip(columns, widths).map { text, width in
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }.joined()
    }

    private func ms(_ value: Double) -> String { String(format: "%.1f", value) }
    private func percent(_ fraction: Double) -> String { String(format: "%.2f", fraction * 100) }
    private func ratio(_ value: Double) -> String { String(format: "%.3f", value) }
}
