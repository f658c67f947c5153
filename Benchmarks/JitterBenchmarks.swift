// SPDX-License-Identifier: Apache-2.0
import Foundation
import JitterBuffer
import JitterBufferEvaluation
import NetworkSimulation

/// Jitter buffers on the same network traces (`TraceEvaluation`): (a) ours,
/// `JitterBuffer.AdaptiveJitterBuffer`, in each `PlayoutMode`, (b) speexdsp's jitter buffer,
/// (c) the fixed-delay oracle at the late loss ours reached, and also at speex's, so speex's own
/// distance from the optimum shows.
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
    /// `--seed-offset`: another draw of the generated traces (0: docs/performance.md's table).
    var seedOffset: UInt64 = 0
    /// `--tick-ms`: ours plays a frame per 20 ms tick, or a device period (10 or 5 ms) per tick
    /// as the engine can (`PlayoutTick.devicePeriod`); speexdsp ticks per frame either way.
    var tickMs = 20

    func run() throws {
        let stream = try OpusPacketStream()
        var traces = JitterTraceCatalog.standard(seedOffset: seedOffset)
        for path in traceFiles {
            let url = URL(fileURLWithPath: path)
            traces.append(JitterTrace(name: url.deletingPathExtension().lastPathComponent, trace: try NetworkTrace(contentsOf: url),
                                      isStationary: false))
        }
        print("\n== \(Self.group) (baselines: speexdsp 1.2.1 jitter buffer; fixed-delay oracle at the same late loss) ==")
        print("* = not stationary; oracle@X = the fixed delay D with X's late loss; concealed = ticks without a new packet;")
        print("ours = default policy (FEC first), judged with FEC recovery credited; ours, waiting = .waitForPacket, own payloads only")
        if tickMs != 20 { print("ours plays \(tickMs) ms per tick (a device period, `nextSamples`); us/tick is per its tick") }
        print(row("trace", "buffer", "mean ms", "p95 ms", "late %", "concealed %", "us/tick", "mean/oracle", "mean/speex", "R", "targets"))
        print("R = the wideband E-model's conversational rating of the mean delay (+ \(PlayoutDelayPricing.endpointDelayMs) ms at the ends) and the late loss, Opus 24 kb/s")
        var met = [0, 0]
        for entry in traces {
            for (index, isMet) in try replay(entry, stream: stream).enumerated() where isMet { met[index] += 1 }
        }
        for (index, mode) in PlayoutMode.all.enumerated() {
            print("issue targets met by \(mode.label) (\(mode.accounting)) on \(met[index]) of \(traces.count) traces (seed offset \(seedOffset))")
        }
    }

    /// The line colour of each mode in the plots.
    static let colors = [PlayoutMode.fecFirst.label: "#1f77b4", PlayoutMode.waiting.label: "#2ca02c"]

    /// Replays one trace into speex and into ours in every mode and prints the rows; returns,
    /// per mode, whether ours met the targets on it.
    private func replay(_ entry: JitterTrace, stream: OpusPacketStream) throws -> [Bool] {
        let trace = entry.trace
        let evaluation = try TraceEvaluation(entry, stream: stream, tickSamples: OpusPacketStream.samplesPerFrame * tickMs / 20)
        let speex = evaluation.speex
        let speexOracle = evaluation.speexOracle
        let name = entry.name + (entry.isStationary ? "" : " *")
        print(row(name, "speex", ms(speex.meanDelayMs), ms(speex.p95DelayMs), percent(speex.lateLoss), percent(speex.concealed),
                  ms(speex.microsecondsPerTick), ratio(speex.meanDelayMs / speexOracle.delayMs), "",
                  rating(speex.meanDelayMs, speex.lateLoss), ""))
        print(row("", "oracle@speex", ms(speexOracle.delayMs), ms(speexOracle.delayMs), percent(speexOracle.lateLoss),
                  percent(speexOracle.concealed), "", "", "", "", ""))
        recordSpeex(entry.name, speex: speex, speexOracle: speexOracle)

        var series = [DelayPlot.series("speexdsp playout", color: "#ff7f0e", run: evaluation.speexRun, trace: trace)]
        var defaultOracle = speexOracle
        for outcome in evaluation.outcomes {
            let mode = outcome.mode
            let ours = outcome.summary
            let oracle = outcome.oracle
            if mode.policy == .recoverFromFECFirst { defaultOracle = oracle }
            print(row("", "oracle@" + mode.label, ms(oracle.delayMs), ms(oracle.delayMs), percent(oracle.lateLoss),
                      percent(oracle.concealed), "", "", "", "", ""))
            print(row("", mode.label, ms(ours.meanDelayMs), ms(ours.p95DelayMs), percent(outcome.lateLoss), percent(ours.concealed),
                      ms(ours.microsecondsPerTick), ratio(ours.meanDelayMs / oracle.delayMs), ratio(ours.meanDelayMs / speex.meanDelayMs),
                      rating(ours.meanDelayMs, outcome.lateLoss), outcome.misses.isEmpty ? "met" : outcome.misses.joined(separator: " ")))
            if mode.creditsFEC {
                print(row("", "  own payloads only", "", "", percent(ours.lateLoss), "", "", "", "", "", ""))
            }
            record(entry.name, mode: mode, ours: ours, late: outcome.lateLoss, speex: speex, oracle: oracle)
            series.append(DelayPlot.series(mode.label + " playout", color: Self.colors[mode.label] ?? "#7f7f7f", run: outcome.run,
                                           trace: trace))
        }

        if let plotDirectory {
            let plot = DelayPlot(
                title: "\(entry.name): network delay and playout delay", trace: trace, series: series,
                oracle: (defaultOracle.delayMs, String(format: "oracle %.0f ms (%.2f%% late, as ours)", defaultOracle.delayMs,
                                                       defaultOracle.lateLoss * 100)))
            try plot.write(to: plotDirectory, name: "jitter-" + entry.name)
        }
        return evaluation.outcomes.map(\.misses.isEmpty)
    }

    private func add(_ name: String, _ figure: String, _ value: Double, _ unit: String, _ baseline: String?, _ baselineValue: Double?) {
        report.add(BenchmarkFigure(group: Self.group, name: "\(name) \(figure)", value: value, unit: unit, baseline: baseline,
                                   baselineValue: baselineValue, ratio: baselineValue.map { value / $0 }), quiet: true)
    }

    /// Figures for `--json`: speex against the oracle.
    private func recordSpeex(_ name: String, speex: PlayoutSummary, speexOracle: FixedDelayOracle) {
        add(name, "speex mean delay", speex.meanDelayMs, "ms", "fixed-delay oracle", speexOracle.delayMs)
        add(name, "speex late loss", speex.lateLoss * 100, "%", nil, nil)
    }

    /// Figures for `--json`: ours in one mode against speex and the oracle.
    private func record(_ name: String, mode: PlayoutMode, ours: PlayoutSummary, late: Double, speex: PlayoutSummary,
                        oracle: FixedDelayOracle) {
        let prefix = mode.policy == .recoverFromFECFirst ? "" : "waiting "
        add(name, prefix + "mean delay", ours.meanDelayMs, "ms", "speexdsp jitter buffer", speex.meanDelayMs)
        add(name, prefix + "p95 delay", ours.p95DelayMs, "ms", "speexdsp jitter buffer", speex.p95DelayMs)
        add(name, prefix + "late loss (\(mode.accounting))", late * 100, "%", "speexdsp jitter buffer", speex.lateLoss * 100)
        add(name, prefix + "late loss (own payloads only)", ours.lateLoss * 100, "%", "speexdsp jitter buffer", speex.lateLoss * 100)
        add(name, prefix + "concealed", ours.concealed * 100, "%", "speexdsp jitter buffer", speex.concealed * 100)
        add(name, prefix + "mean delay vs oracle", ours.meanDelayMs, "ms", "fixed-delay oracle", oracle.delayMs)
        let targets = PlayoutTargets()
        add(name, prefix + "conversational R", targets.conversationalRating(meanDelayMs: ours.meanDelayMs, lateLoss: late), "R_WB",
            "speexdsp jitter buffer", targets.conversationalRating(meanDelayMs: speex.meanDelayMs, lateLoss: speex.lateLoss))
        add(name, prefix + "cpu per tick", ours.microsecondsPerTick, "us/tick", "speexdsp jitter buffer + Opus", speex.microsecondsPerTick)
    }

    /// The conversational rating `PlayoutTargets` compares, one decimal.
    private func rating(_ meanDelayMs: Double, _ lateLoss: Double) -> String {
        String(format: "%.1f", PlayoutTargets().conversationalRating(meanDelayMs: meanDelayMs, lateLoss: lateLoss))
    }

    private func row(_ columns: String...) -> String {
        let widths = [24, 13, 9, 9, 8, 12, 9, 12, 11, 7, 0]
        return zip(columns, widths).map { text, width in
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }.joined()
    }

    private func ms(_ value: Double) -> String { String(format: "%.1f", value) }
    private func percent(_ fraction: Double) -> String { String(format: "%.2f", fraction * 100) }
    private func ratio(_ value: Double) -> String { String(format: "%.3f", value) }
}
