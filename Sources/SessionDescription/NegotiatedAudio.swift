// SPDX-License-Identifier: Apache-2.0
import SRTP

/// What an offer/answer settled for one audio stream: where to send, what to send it as,
/// and how SRTP is keyed: the keys each way (SDES), or the DTLS handshake's role and the peer's
/// fingerprints (DTLS-SRTP).
///
/// Holds keys: `description` leaves them out; never print the keys themselves.
public struct NegotiatedAudio: Sendable, Equatable, CustomStringConvertible {
    /// The peer's media address (its `c=`).
    public var remoteAddress: String
    /// The peer's RTP port (its `m=audio`).
    public var remotePort: UInt16
    /// The codec both sides use.
    public var codec: AudioCodec
    /// Its payload type (dynamic for Opus, the static one or as mapped for the others).
    public var payloadType: UInt8
    /// The answer's other codecs that we offered too, by payload type: the answerer may
    /// switch to any of them without a new offer (RFC 3264 §5.1), so the call plays them too.
    /// Empty when we answered (our answer lists one codec) or the answer listed one.
    public var alternativeReceiveCodecs: [UInt8: AudioCodec] = [:]
    /// The peer's `a=fmtp` parameters for that payload type (what it wants to receive), as
    /// written; empty when it gave none.
    public var peerFormatParameters: String
    /// telephone-event's payload type and clock rate both sides use, or nil without DTMF.
    public var telephoneEvent: RTPMap?
    /// The peer's `a=ptime`, if it gave one.
    public var peerPtime: Int?
    /// Whether RTCP shares the RTP port (both sides said `a=rtcp-mux`).
    public var rtcpMux: Bool
    /// How SRTP is keyed: SDES keys each way, or a DTLS handshake to run.
    public var keying: NegotiatedKeying
    /// The peer's ICE attributes (credentials, options, candidates, end-of-candidates: its media
    /// level's, its session's where the media level has none), nil when it sent none. Kept for
    /// the ICE layer, whichever way SRTP is keyed.
    public var remoteICE: ICEAttributes?
    /// The SRTP suite both sides use: the SDES one; nil for DTLS-SRTP, whose handshake picks it
    /// (then `SRTPKeyingMaterial.dtlsKeys` gives keys of the suite chosen).
    public var profile: SRTPProfile? { sendingKey?.profile }
    /// Our SDES key: we protect what we send with it. Nil for DTLS-SRTP.
    public var sendingKey: SRTPKeyingMaterial? {
        guard case let .sdes(sending, _) = keying else { return nil }
        return sending
    }
    /// The peer's SDES key: we unprotect what we receive with it. Nil for DTLS-SRTP.
    public var receivingKey: SRTPKeyingMaterial? {
        guard case let .sdes(_, receiving) = keying else { return nil }
        return receiving
    }
    /// The DTLS handshake to run for DTLS-SRTP; nil for SDES.
    public var dtls: NegotiatedDTLS? {
        guard case let .dtls(dtls) = keying else { return nil }
        return dtls
    }
    /// Which way media flows, from our side: `receiveOnly` when the peer put us on hold with
    /// `sendonly`, `inactive` when neither sends, … (RFC 3264 § 6.1).
    public var direction: MediaDirection = .sendReceive

    /// Where to send, the payload types, and the SDES suite or the DTLS role and peer
    /// fingerprint; no keys (nor the peer's ICE password).
    public var description: String {
        let address = remoteAddress.contains(":") ? "[\(remoteAddress)]" : remoteAddress
        return "send to \(address):\(remotePort), \(codec) pt \(payloadType)"
            + alternativeReceiveCodecs.sorted { $0.key < $1.key }.map { ", may receive \($0.value) pt \($0.key)" }.joined()
            + (telephoneEvent.map { ", telephone-event pt \($0.payloadType)/\($0.clockRate)" } ?? "")
            + ", \(keying)" + (rtcpMux ? ", rtcp-mux" : "") + (direction == .sendReceive ? "" : ", \(direction)")
            + (remoteICE.map { ", peer ICE \($0)" } ?? "")
    }
}
