// SPDX-License-Identifier: Apache-2.0
import MediaBasics
import RTP
import SRTP

/// Something that happened to a call's media that the application may want to act on.
public enum CallMediaEvent: Sendable, Equatable {
    /// The remote sender changed its synchronisation source (a restart, or a new stream after
    /// a transfer): playout restarted on the new stream.
    case ssrcChanged(from: UInt32, to: UInt32)
    /// Another sender that authenticates (`ssrc`; a second sender holding the key, a forked
    /// call) streams in parallel with the current one, which is still talking: its packets are
    /// dropped and counted (`InboundRTPStatistics.packetsFromCompetingSource`), once per SSRC.
    /// It replaces the current sender only once that one has been silent for 500 ms or said
    /// goodbye (then `ssrcChanged`).
    case competingSourceRefused(ssrc: UInt32)
    /// `consecutiveFailures` datagrams in a row failed SRTP authentication (a wrong key, a
    /// re-key the peer did not signal, or forged traffic). Dropped; the call goes on.
    case srtpAuthenticationFailing(consecutiveFailures: Int)
    /// A master key reached the lifetime its SDES line gave it (`|2^N|`, RFC 4568 §6.1;
    /// `SRTPKeyingMaterial.lifetimePackets`): `.outbound`, ours — nothing more can be sent;
    /// `.inbound`, the peer's — every packet it sends under that key is refused. Once per
    /// direction: the call needs new keys (counted in `SRTPTransportStatistics`
    /// `sendingKeyLifetimeExpired` and `keyLifetimeExpired`).
    case srtpKeyLifetimeExpired(SRTPDirection)
    /// No packet arrived for `silentForMs` while the call was not held.
    case remoteSilenceBegan(silentForMs: Int)
    /// Packets arrive again after `remoteSilenceBegan`.
    case remoteMediaResumed
    /// The far end said goodbye (an RTCP BYE): it hung up or left the session.
    case remoteBye
    /// The far end pressed a key (RFC 4733), reported once when the event ends.
    case dtmfReceived(DTMFEvent, durationMs: Int)
    /// The device under the mixer lost samples (an overrun or underrun).
    case xrun(AudioDirection)
}

/// The compact form events travel in between threads: a plain value (no payload needing
/// reference counting), so pushing one allocates nothing.
enum CallMediaEventRecord: BitwiseCopyable {
    case ssrcChanged(from: UInt32, to: UInt32)
    case competingSourceRefused(ssrc: UInt32)
    case srtpAuthenticationFailing(consecutiveFailures: Int)
    case sendingKeyExpired
    case receivingKeyExpired
    case remoteSilenceBegan(silentForMs: Int)
    case remoteMediaResumed
    case remoteBye
    case dtmfReceived(eventCode: UInt8, durationMs: Int)
    case captureXrun
    case playbackXrun

    /// The public event.
    var event: CallMediaEvent? {
        switch self {
        case let .ssrcChanged(from, to): .ssrcChanged(from: from, to: to)
        case let .competingSourceRefused(ssrc): .competingSourceRefused(ssrc: ssrc)
        case let .srtpAuthenticationFailing(count): .srtpAuthenticationFailing(consecutiveFailures: count)
        case .sendingKeyExpired: .srtpKeyLifetimeExpired(.outbound)
        case .receivingKeyExpired: .srtpKeyLifetimeExpired(.inbound)
        case let .remoteSilenceBegan(ms): .remoteSilenceBegan(silentForMs: ms)
        case .remoteMediaResumed: .remoteMediaResumed
        case .remoteBye: .remoteBye
        case let .dtmfReceived(code, ms): DTMFEvent(rawValue: code).map { .dtmfReceived($0, durationMs: ms) }
        case .captureXrun: .xrun(.capture)
        case .playbackXrun: .xrun(.playback)
        }
    }
}
