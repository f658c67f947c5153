// SPDX-License-Identifier: Apache-2.0
/// # JitterBufferEvaluation
///
/// How the adaptive jitter buffer is judged, shared by the `jitter` benchmarks and the tests:
/// never linked into what a softphone ships.
///
/// - `JitterTrace` / `JitterTraceCatalog`: the seeded network traces (ITU-T G.1050 classes,
///   delay spikes, clock drift, heavy-tailed anchors) and the committed ones in `vectors/traces/`.
/// - `OpusPacketStream`: real Opus packets in RTP, one per trace sequence number.
/// - `AdaptiveJitterBufferReplay`, `SpeexJitterBaseline`: replay a trace on a virtual 20 ms
///   clock into ours and into speexdsp's jitter buffer; each gives a `PlayoutRun`.
/// - `FixedDelayOracle`: the best fixed playout delay for a late-loss budget, knowing the trace.
/// - `PlayoutSummary`, `PlayoutMode`, `TraceEvaluation`, `PlayoutTargets`: the figures, and
///   the targets ours must meet against speex and the oracle.
enum JitterBufferEvaluationModule {}
