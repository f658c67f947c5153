// SPDX-License-Identifier: Apache-2.0
import SRTP

/// What an offer/answer settled for one audio stream: where to send, what to send it as,
/// and the keys each way.
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
    /// The SRTP suite both sides use.
    public var profile: SRTPProfile { sendingKey.profile }
    /// Our key: we protect what we send with it.
    public var sendingKey: SRTPKeyingMaterial
    /// The peer's key: we unprotect what we receive with it.
    public var receivingKey: SRTPKeyingMaterial
    /// Which way media flows, from our side: `receiveOnly` when the peer put us on hold with
    /// `sendonly`, `inactive` when neither sends, … (RFC 3264 § 6.1).
    public var direction: MediaDirection = .sendReceive

    /// Where to send, the payload types and suite; no keys.
    public var description: String {
        let address = remoteAddress.contains(":") ? "[\(remoteAddress)]" : remoteAddress
        return "send to \(address):\(remotePort), \(codec) pt \(payloadType)"
            + alternativeReceiveCodecs.sorted { $0.key < $1.key }.map { ", may receive \($0.value) pt \($0.key)" }.joined()
            + (telephoneEvent.map { ", telephone-event pt \($0.payloadType)/\($0.clockRate)" } ?? "")
            + ", \(profile.sdesName)" + (rtcpMux ? ", rtcp-mux" : "") + (direction == .sendReceive ? "" : ", \(direction)")
    }
}
