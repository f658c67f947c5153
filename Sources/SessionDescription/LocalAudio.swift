// SPDX-License-Identifier: Apache-2.0
import SRTP

/// What this side offers or answers with: where it receives, its codecs and payload types and
/// packet time, and the crypto suites it accepts, most preferred first.
public struct LocalAudio: Sendable, Equatable {
    /// The address the peer sends to (numeric IPv4 or IPv6).
    public var address: String
    /// The RTP port (RTCP too: we always offer and accept rtcp-mux).
    public var port: UInt16
    /// The codecs we send and receive, most preferred first: an offer lists them in this
    /// order; an answer takes the first of the offer's (the offerer's preference, RFC 3264
    /// §6.1) that is here. Opus first; G.722 and G.711 for SIP trunks and gateways.
    public var codecs: [AudioCodec] = [.opus, .g722, .pcmu, .pcma]
    /// Opus's payload type when we offer (an answer takes the offer's). The other codecs use
    /// their static payload types (0, 8, 9).
    public var opusPayloadType: UInt8 = 111
    /// telephone-event's payload type on Opus's clock when we offer, or nil to leave DTMF out.
    public var telephoneEventPayloadType: UInt8? = 101
    /// telephone-event's clock rate for `telephoneEventPayloadType` (RFC 7874: the audio
    /// codec's, 48 kHz for Opus).
    public var telephoneEventClockRate = 48_000
    /// telephone-event's payload type on the 8 kHz clock of G.711 and G.722 when we offer one
    /// of them (RFC 4733 events share the voice's RTP clock), or nil to leave it out.
    public var narrowbandTelephoneEventPayloadType: UInt8? = 100
    /// Our Opus `a=fmtp` parameters (what we want to receive).
    public var opusFormatParameters = "useinbandfec=1"
    /// Our packet time in milliseconds.
    public var ptime = 20
    /// Which way we want media to flow (`a=sendrecv` by default; `sendonly` or `inactive` to
    /// put the peer on hold in a re-offer). An answer narrows it to what the offer allows.
    public var direction: MediaDirection = .sendReceive
    /// The suites we accept, most preferred first: by default every suite the SRTP layer
    /// supports (`SRTPProfile.allCases`), the RFC 4568 ones first as most peers expect them.
    public var suites: [SRTPProfile] = LocalAudio.supportedSuites

    /// Every suite `SRTPSession` protects and unprotects, most preferred first.
    public static let supportedSuites: [SRTPProfile] = [
        .aesCM128HmacSha1_80, .aesCM128HmacSha1_32, .aeadAES128GCM, .aeadAES256GCM, .aes256CMHmacSha1_80, .aes256CMHmacSha1_32,
    ]
    /// The `o=` user and session id.
    public var originUser = "voicecall"
    /// The session id in `o=` (any number; an answer and its offer need not agree).
    public var sessionID: UInt64 = 1

    /// A side receiving at `address`:`port`.
    public init(address: String, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// The `o=` value for this side.
    var origin: String {
        "\(originUser) \(sessionID) 1 IN \(ConnectionAddress(address: address).family.rawValue) \(address)"
    }
}

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
