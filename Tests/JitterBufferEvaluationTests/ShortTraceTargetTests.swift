// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import JitterBufferEvaluation

/// The adaptive buffer against speexdsp's jitter buffer and the fixed-delay oracle on the
/// committed 20 s traces of G.1050 classes B, C and D, in both modes (`PlayoutMode`: FEC first
/// with FEC recovery credited, and waiting judged on own payloads only) — docs/performance.md's jitter
/// targets, checked on every test run instead of only in the benchmark.
///
/// The traces are committed and every part of the replay (Opus stream, both buffers) is
/// deterministic, so the figures are the same on every run: margins are not there for noise
/// but for what a 20 s trace does to a target set on 60 s ones.
///
/// - Late loss ≤ speex's, per trace: the target as docs/performance.md states it (measured: ours 0.0–0.7 %
///   FEC first, 0.5–2.3 % waiting, against speex's 1.1–3.1 %).
/// - Mean delay ≤ 1.0 × speex's per trace, and ≤ 0.9 × speex's over the three together: the
///   the stated 0.9 is met over 60 s of traffic, but a single 20 s draw weighs the first second
///   (initial delay, before the estimate takes over) three times as much, and speex's own
///   delay varies more between short draws (speex / oracle 1.08–1.34 here). Measured per trace
///   0.64–0.94 × speex FEC first, 0.68–0.96 × waiting; 0.83 and 0.87 over the three.
/// - Mean delay ≤ 1.15 × the oracle's at ours' late loss, per trace: the documented target for a
///   stationary network as it is (measured 0.18–0.53 FEC first, 0.71–0.88 waiting).
@Suite struct ShortTraceTargetTests {
    static let evaluations: [TraceEvaluation] = {
        guard let stream = try? OpusPacketStream() else { return [] }
        return JitterTraceCatalog.shortRecipes.compactMap { recipe in
            (try? JitterTraceCatalog.load(recipe)).flatMap { try? TraceEvaluation($0, stream: stream) }
        }
    }()

    static func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
    static func percent(_ fraction: Double) -> String { String(format: "%.2f %%", fraction * 100) }

    @Test func everyShortTraceWasReplayed() {
        #expect(Self.evaluations.map(\.trace.name) == JitterTraceCatalog.shortRecipes.map(\.name))
    }

    @Test(arguments: PlayoutMode.all.indices)
    func lateLossIsNoHigherThanSpeexs(mode: Int) {
        for evaluation in Self.evaluations {
            let ours = evaluation.outcomes[mode]
            #expect(ours.lateLoss <= evaluation.speex.lateLoss,
                    "\(evaluation.trace.name), \(ours.mode.label): late \(Self.percent(ours.lateLoss)) against speex's \(Self.percent(evaluation.speex.lateLoss))")
        }
    }

    @Test(arguments: PlayoutMode.all.indices)
    func meanDelayIsBelowSpeexs(mode: Int) throws {
        var ours = 0.0, speex = 0.0
        for evaluation in Self.evaluations {
            let outcome = evaluation.outcomes[mode]
            #expect(outcome.summary.meanDelayMs <= 1.0 * evaluation.speex.meanDelayMs,
                    "\(evaluation.trace.name), \(outcome.mode.label): mean \(Self.ms(outcome.summary.meanDelayMs)) against speex's \(Self.ms(evaluation.speex.meanDelayMs))")
            ours += outcome.summary.meanDelayMs
            speex += evaluation.speex.meanDelayMs
        }
        try #require(!Self.evaluations.isEmpty)
        #expect(ours <= PlayoutTargets().meanOverSpeex * speex,
                "\(PlayoutMode.all[mode].label) over the three traces: \(String(format: "%.3f", ours / speex)) × speex's mean delay")
    }

    @Test(arguments: PlayoutMode.all.indices)
    func meanDelayIsNearTheOracleAtTheSameLateLoss(mode: Int) {
        for evaluation in Self.evaluations {
            let ours = evaluation.outcomes[mode]
            #expect(ours.summary.meanDelayMs <= PlayoutTargets().meanOverOracle * ours.oracle.delayMs,
                    "\(evaluation.trace.name), \(ours.mode.label): mean \(Self.ms(ours.summary.meanDelayMs)) against the oracle's \(Self.ms(ours.oracle.delayMs)) at \(Self.percent(ours.lateLoss)) late")
        }
    }
}
