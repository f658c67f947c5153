// SPDX-License-Identifier: Apache-2.0
/// # Transport
///
/// UDP sockets for RTP and RTCP on the network thread: non-blocking datagram I/O into
/// caller-provided buffers with each datagram's source (`UDPSocket`, `ReceivedDatagram`,
/// `PeerAddress` for symmetric RTP), one `poll` over every call's sockets with a cross-thread
/// waker (`SocketPoller`), the options a softphone sets (DSCP marking, buffer sizes), and
/// typed `errno` errors (`SocketError`). The network impairment simulator is in
/// `NetworkSimulation`.
enum TransportModule {}
