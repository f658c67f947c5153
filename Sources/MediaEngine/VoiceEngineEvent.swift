// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import SRTP
import SystemErrors
import Transport

/// Identifies a call inside one `VoiceEngine` (given by `addCall`).
public struct EngineCallID: Sendable, Hashable, CustomStringConvertible {
    /// A number unique within the engine.
    public let rawValue: UInt64

    public var description: String { "call \(rawValue)" }
}

/// Something that happened in a running `VoiceEngine`, in the order the engine saw it.
public enum VoiceEngineEvent: Sendable, Equatable {
    /// An event of one call's media (SSRC change, SRTP failures, remote silence, key press,
    /// BYE, xrun).
    case call(EngineCallID, CallMediaEvent)
    /// Symmetric RTP moved a call's remote address (RTP, or its RTCP socket when `rtcp`) to
    /// where its authenticated packets come from.
    case remoteAddressLatched(EngineCallID, UDPEndpoint, rtcp: Bool)
    /// A call's socket failed; the call stays, its network side idle on that socket.
    case socketFailed(EngineCallID, SocketError)
    /// A call's DTLS handshake completed: its SRTP is keyed with `profile`, and the peer
    /// presented the certificate its SDP named (`peerFingerprint`). Media flows from now on.
    case dtlsConnected(EngineCallID, profile: SRTPProfile, peerFingerprint: CertificateFingerprint)
    /// A call's DTLS association failed (a forged fingerprint, no handshake in time, no common
    /// suite, a fatal alert): the call has no keys, and sends and plays nothing new.
    case dtlsFailed(EngineCallID, DTLSError)
    /// The peer closed a call's DTLS association (close_notify): it has hung up its media.
    case dtlsClosed(EngineCallID)
    /// A call's ICE connection changed state (`.failed` after `.connected` is a lost path or,
    /// with consent freshness, a peer that stopped consenting for 30 s: the call hears nothing
    /// until an ICE restart). The agent's own events (candidates to trickle, the selected
    /// pair) stay the application's: `ICEAgent.takeEvents`.
    case iceStateChanged(EngineCallID, ICEConnectionState)
    /// The device reported a fault or a recovery.
    case device(AudioDeviceEvent)
    /// The audio thread runs at normal priority: SCHED_FIFO was refused (`.notPermitted`
    /// without CAP_SYS_NICE or an rtprio limit).
    case realtimeRefused(Errno)
    /// Device I/O started on `device`.
    case audioStarted(device: String)
    /// Device I/O stopped: asked to (`lost` false), or because the device was lost.
    case audioStopped(device: String, lost: Bool)
    /// The device was lost and I/O moved to `to` (`DeviceLossPolicy.switchTo`).
    case deviceSwitched(from: String, to: String)
}
