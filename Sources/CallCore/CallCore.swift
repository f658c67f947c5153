// SPDX-License-Identifier: Apache-2.0
@_exported import CallQuality
/// # CallCore
///
/// The per-call media, sans-I/O (no devices, no sockets, no Foundation), driven by an explicit clock:
///
/// - `CallMedia` — one call: received datagrams (SRTP → RTP) into the adaptive jitter
///   buffer, frames pulled from it on the playout clock; processed microphone frames through
///   the mute gate or a `TranslationEngine` into Opus and RTP, out through SRTP. A network
///   side and an audio side with single-producer/single-consumer queues between them.
/// - `CallMixer` — every call of one audio device: the mix for playback (per-call gain), voice
///   processing of the microphone with that mix as the echo reference, the processed
///   microphone (and a local conference's other calls) to every unheld call, rate adaptation
///   between the device and the calls.
/// - `UplinkPipeline` — PCM frame → Opus → RTP, the encoder half a call uses.
/// - `OpusFormatParameters` — a peer's `a=fmtp` (RFC 7587); `MediaConfiguration.applying(peer:ptime:)`
///   fits what we send to it, `formatParameters` is what we ask for.
///
/// - RTCP: SR/RR, SDES, BYE and an RFC 3611 XR VoIP Metrics block about the stream received
///   in every report; the far end's reports read into `RemoteInboundRTPStatistics`.
/// - Call quality: `EModel` (ITU-T G.107) and `WidebandEModel` (G.107.1) with Opus's
///   `CodecImpairment` (module CallQuality, re-exported here), giving each call's
///   `CallQualityEstimate` (R and MOS).
///
/// Statistics use the W3C WebRTC names (`InboundRTPStatistics`, `OutboundRTPStatistics`,
/// `MediaSourceStatistics`); events (`CallMediaEvent`) travel through preallocated rings.
/// Nothing on the per-frame audio path allocates.
enum CallCoreModule {}
