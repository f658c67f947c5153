// SPDX-License-Identifier: Apache-2.0
/// # JitterBuffer
///
/// Adaptive playout of received RTP audio: reordering, loss concealment, FEC recovery and
/// time-stretching toward a target delay estimated from packet arrivals.
///
/// - `AdaptiveJitterBuffer`: `insert` packets as they arrive, `nextFrame` once per tick.
/// - `JitterBufferConfiguration` / `JitterBufferError`: settings and why they were refused.
/// - `LearntDelays`: what a call learnt of its path, for the next call on it to start from.
/// - `LatePacketPolicy`: FEC first, or wait for an overtaken packet's own payload.
/// - `PlayoutEvent` / `PlayoutKind`: what each tick played.
/// - `JitterBufferStatistics`: W3C WebRTC-style counters.
///
/// Internals, after WebRTC NetEq: `PacketStore` (preallocated ring of packets by extended
/// sequence number), `RelativeDelayEstimator` (relative-delay histogram with forgetting, and
/// the target delay), `DecisionLogic` (state in, `PlayoutDecision` out: a pure value), the
/// operations that carry a decision out (`NormalOperation`, which also books
/// merges, `ExpandOperation`, `FECRecoveryOperation`, `AccelerateOperation`,
/// `PreemptiveExpandOperation`, `ComfortNoiseOperation`) on a `PlayoutState`, and
/// `PlayoutQueue` (produced samples waiting to be emitted, with segment markers).
enum JitterBufferModule {}
