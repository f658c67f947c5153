/// # Transport
///
/// UDP sockets for RTP and RTCP: non-blocking datagram I/O into caller-provided buffers,
/// typed `errno` errors, and (later) the network impairment simulator that drives tests.
enum TransportModule {}
