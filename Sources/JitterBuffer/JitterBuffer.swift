/// # JitterBuffer
///
/// Adaptive playout of received RTP audio: reordering, loss concealment, FEC recovery and
/// time-stretching toward a target delay estimated from packet arrivals.
///
/// - `AdaptiveJitterBuffer`: `insert` packets as they arrive, `nextFrame` once per tick.
/// - `JitterBufferConfiguration` / `JitterBufferError`: settings and why they were refused.
/// - `PlayoutEvent` / `PlayoutKind`: what each tick played.
/// - `JitterBufferStatistics`: W3C WebRTC-style counters.
///
/// Internals: `PacketStore` (preallocated ring of packets by extended sequence number),
/// `RelativeDelayEstimator` (NetEq-style relative-delay histogram with forgetting),
/// `PlayoutQueue` (decoded samples waiting to be emitted, with segment markers).
enum JitterBufferModule {}
