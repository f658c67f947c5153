/// # Transport
///
/// UDP sockets for RTP and RTCP: non-blocking datagram I/O into caller-provided buffers,
/// typed `errno` errors; and the network impairment simulator (``NetworkProfile``,
/// ``NetworkSimulator``, ``NetworkTrace``) whose seeded traces drive tests and benchmarks.
enum TransportModule {}
