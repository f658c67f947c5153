/// # JitterBuffer
///
/// Adaptive playout of received RTP audio: reordering, loss concealment, FEC recovery and
/// time-stretching toward a target delay estimated from packet arrivals.
enum JitterBufferModule {}
