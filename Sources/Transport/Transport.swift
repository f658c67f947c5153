/// # Transport
///
/// UDP sockets for RTP and RTCP: non-blocking datagram I/O into caller-provided buffers,
/// typed `errno` errors. The network impairment simulator is in `NetworkSimulation`.
enum TransportModule {}
