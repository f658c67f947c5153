/// # MediaEngine
///
/// The per-call media pipelines over the sans-I/O core: the uplink turns PCM frames into
/// SRTP packets (Opus → RTP → SRTP), the downlink turns received datagrams back into PCM
/// (SRTP → RTP → loss detection → FEC / PLC / decode), each with preallocated buffers and
/// no heap allocation per frame. `DemoCall` wires two endpoints over real UDP sockets.
enum MediaEngineModule {}
