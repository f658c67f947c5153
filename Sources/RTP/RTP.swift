// SPDX-License-Identifier: Apache-2.0
/// # RTP
///
/// Real-time Transport Protocol pieces of VoiceEngine, as pure computation over bytes
/// (no sockets, no clocks of its own):
///
/// - **RTP packets** (RFC 3550 §5.1): ``RTPPacketView`` parses a received packet in place
///   without allocating; ``RTPHeader`` builds one into a caller's buffer. CSRC lists
///   (``RTPCSRCList``) and header extensions (``RTPHeaderExtension``, RFC 3550 generic and
///   RFC 8285 one-byte / two-byte forms) use fixed-capacity inline storage, so the per-packet
///   path performs no heap allocation. Bad input yields a typed ``RTPParseError``.
/// - **Sequence numbers and timestamps**: ``RTPSequenceExtender`` (RFC 3550 A.1: probation,
///   wrap, misordering, large jumps, restart) and ``SerialNumberArithmetic`` (RFC 1982
///   wrapping difference and ordering).
/// - **Reception statistics**: ``RTPReceiverStatistics`` (RFC 3550 A.3 loss, A.8 jitter,
///   duplicates) producing ``RTCPReportBlock``s with LSR/DLSR.
/// - **RTCP** (RFC 3550 §6): ``RTCPCompoundPacket`` of ``RTCPPacket``s — sender and receiver
///   reports, source descriptions, BYE, extended reports (RFC 3611 XR, with its VoIP Metrics
///   block ``RTCPVoIPMetricsBlock``) — parsed with the A.2 validity checks
///   (``RTCPParseError``) and serialised; ``NTPTimestamp`` and round-trip time.
/// - **Burst and gap metrics** (RFC 3611 §4.7.2): ``BurstGapStatistics`` over packets in
///   sequence order, fed from arrival order by ``BurstGapTracker``.
/// - **DTMF** (RFC 4733): ``TelephoneEvent`` payloads with ``DTMFEvent`` digits and
///   ``TelephoneEventKeyPress``, the packet sequence a sender emits for one key press.
///
/// SRTP and SDES key exchange are the `SRTP` module (over libsrtp2), so RTP links no C library.
