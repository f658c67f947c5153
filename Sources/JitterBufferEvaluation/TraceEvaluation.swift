// SPDX-License-Identifier: Apache-2.0
/// One trace replayed into speexdsp's jitter buffer and into ours in each mode, with the
/// fixed-delay oracle at each one's late loss and the targets ours missed.
public struct TraceEvaluation: Sendable {
    /// Ours in one mode.
    public struct Outcome: Sendable {
        /// The mode.
        public var mode: PlayoutMode
        /// When each packet played.
        public var run: PlayoutRun
        /// Its figures.
        public var summary: PlayoutSummary
        /// Late loss in the mode's accounting (FEC recovery credited or not).
        public var lateLoss: Double
        /// The oracle at that late loss.
        public var oracle: FixedDelayOracle
        /// The targets missed (empty: all met).
        public var misses: [String]
    }

    /// The trace.
    public var trace: JitterTrace
    /// speexdsp's playout.
    public var speexRun: PlayoutRun
    /// speexdsp's figures.
    public var speex: PlayoutSummary
    /// The oracle at speex's late loss (how far speex is from the optimum).
    public var speexOracle: FixedDelayOracle
    /// Ours, one per mode, in the order given.
    public var outcomes: [Outcome]

    /// Replays `trace` (packets from `stream`) into speex, then into ours in each of `modes`
    /// (a frame per tick, or `tickSamples` per tick: a device period), and judges ours by
    /// `targets`.
    public init(_ trace: JitterTrace, stream: OpusPacketStream, modes: [PlayoutMode] = PlayoutMode.all,
                targets: PlayoutTargets = PlayoutTargets(), tickSamples: Int = OpusPacketStream.samplesPerFrame) throws {
        self.trace = trace
        speexRun = try SpeexJitterBaseline.replay(trace.trace, stream: stream)
        speex = speexRun.summary(trace.trace)
        speexOracle = FixedDelayOracle(trace: trace.trace, lateLoss: speex.lateLoss)
        var outcomes: [Outcome] = []
        for mode in modes {
            let run = try AdaptiveJitterBufferReplay.replay(trace.trace, stream: stream, policy: mode.policy, tickSamples: tickSamples)
            let summary = run.summary(trace.trace)
            let late = mode.creditsFEC ? summary.lateLossCreditingFEC : summary.lateLoss
            let oracle = FixedDelayOracle(trace: trace.trace, lateLoss: late)
            outcomes.append(Outcome(mode: mode, run: run, summary: summary, lateLoss: late, oracle: oracle,
                                    misses: targets.misses(on: trace, ours: summary, lateLoss: late, speex: speex, oracle: oracle)))
        }
        self.outcomes = outcomes
    }
}
