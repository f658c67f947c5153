// SPDX-License-Identifier: Apache-2.0
import SRTP

/// What this side offers or answers with: where it receives, its codecs and payload types and
/// packet time, how it keys SRTP (SDES, DTLS-SRTP or either) and the SDES suites it accepts,
/// most preferred first, and its ICE credentials and candidates when an ICE layer gives them.
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
    /// How we key SRTP: SDES by default (`a=crypto`, what every existing caller does), DTLS-SRTP
    /// with our certificate's fingerprint, or either.
    public var keyExchange: KeyExchange = .sdes
    /// The SDES suites we accept, most preferred first: by default every suite the SRTP layer
    /// supports (`SRTPProfile.allCases`), the RFC 4568 ones first as most peers expect them.
    /// DTLS-SRTP does not use them: its handshake offers `SRTPProfile.dtlsPreference`.
    public var suites: [SRTPProfile] = LocalAudio.supportedSuites
    /// Our ICE credentials and candidates, written into offers and answers when set; nil (the
    /// default) writes no ICE attribute.
    public var ice: LocalICE?

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
