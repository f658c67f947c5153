// SPDX-License-Identifier: Apache-2.0
@_exported import MediaBasics
import SRTP

/// The `m=audio` section of an SDP body, in the subset a SIP stack or a WebRTC endpoint hands
/// over for one SRTP audio stream: port, profile, payload types, `a=rtpmap`, `a=fmtp`,
/// `a=crypto`, `a=ptime`, `a=rtcp-mux`, `a=rtcp`, the direction
/// (`a=sendrecv`/`sendonly`/`recvonly`/`inactive`), a media-level `c=`, `a=mid`, DTLS-SRTP's
/// `a=fingerprint` and `a=setup`, and the ICE attributes.
///
/// `crypto` holds the attributes with the key: never print them. `description` leaves it out.
public struct AudioDescription: Sendable, Equatable, CustomStringConvertible {
    /// The RTP port (`m=audio <port> …`); 0 rejects the stream.
    public var port: UInt16
    /// The transport profile: `RTP/SAVP` or `RTP/SAVPF` (SRTP), `UDP/TLS/RTP/SAVP` or
    /// `UDP/TLS/RTP/SAVPF` (SRTP keyed by DTLS, RFC 5764 §8); `RTP/AVP` is plain RTP.
    public var profile: String
    /// The payload types in the order of preference given on the `m=` line.
    public var payloadTypes: [UInt8]
    /// The `a=rtpmap` attributes.
    public var rtpMaps: [RTPMap]
    /// The `a=fmtp` parameters by payload type, as written (e.g. `useinbandfec=1`).
    public var formatParameters: [UInt8: String]
    /// The `a=crypto` lines with a suite we support, in the order given.
    public var crypto: [SDESCryptoAttribute]
    /// The suite names of `a=crypto` lines we skipped because we do not support them.
    public var unsupportedSuites: [String]
    /// `a=ptime`, milliseconds.
    public var ptime: Int?
    /// Whether `a=rtcp-mux` is present (RTCP on the RTP port).
    public var rtcpMux: Bool
    /// `a=rtcp:<port> [IN IP4 <address>]`: where RTCP goes without rtcp-mux.
    public var rtcpPort: UInt16?
    /// A media-level `c=`, which takes precedence over the session's.
    public var connection: ConnectionAddress?
    /// The media-level direction attribute, nil when absent (then the session's applies, and
    /// without one `sendrecv`: `SessionDescription.audioDirection`).
    public var direction: MediaDirection?
    /// `a=mid` (RFC 5888 §4): the section's identification tag, which `a=group` lines name.
    public var mid: String?
    /// The media-level `a=fingerprint` and `a=setup` (`SessionDescription.audioDTLS` falls back
    /// to the session's).
    public var dtls: DTLSAttributes
    /// The media-level ICE attributes, the candidates among them
    /// (`SessionDescription.audioICE` falls back to the session's credentials and options).
    public var ice: ICEAttributes

    /// An audio section; everything but the port optional.
    public init(port: UInt16, profile: String = "RTP/SAVP", payloadTypes: [UInt8] = [], rtpMaps: [RTPMap] = [],
                formatParameters: [UInt8: String] = [:], crypto: [SDESCryptoAttribute] = [], unsupportedSuites: [String] = [],
                ptime: Int? = nil, rtcpMux: Bool = false, rtcpPort: UInt16? = nil, connection: ConnectionAddress? = nil,
                direction: MediaDirection? = nil, mid: String? = nil, dtls: DTLSAttributes = DTLSAttributes(),
                ice: ICEAttributes = ICEAttributes()) {
        self.port = port
        self.profile = profile
        self.payloadTypes = payloadTypes
        self.rtpMaps = rtpMaps
        self.formatParameters = formatParameters
        self.crypto = crypto
        self.unsupportedSuites = unsupportedSuites
        self.ptime = ptime
        self.rtcpMux = rtcpMux
        self.rtcpPort = rtcpPort
        self.connection = connection
        self.direction = direction
        self.mid = mid
        self.dtls = dtls
        self.ice = ice
    }

    /// The first Opus mapping in `payloadTypes` order.
    public var opus: RTPMap? { preferred { $0.isOpus } }
    /// The codecs this section lists that we code, in its `m=` order (its preference), each as
    /// the mapping it is sent with: an `a=rtpmap` line, or RFC 3551's static assignment for a
    /// static payload type listed without one (`m=audio … 0 8`).
    public var codecs: [(codec: AudioCodec, map: RTPMap)] {
        payloadTypes.compactMap { payloadType in
            if let map = rtpMaps.first(where: { $0.payloadType == payloadType }) {
                return map.codec.map { ($0, map) }
            }
            guard let codec = AudioCodec(staticPayloadType: payloadType) else { return nil }
            return (codec, RTPMap(payloadType: payloadType, encoding: codec.encodingName, clockRate: codec.rtpClockRate))
        }
    }
    /// The telephone-event mapping at `clockRate` if there is one, else the first.
    public func telephoneEvent(preferringClockRate clockRate: Int) -> RTPMap? {
        preferred { $0.isTelephoneEvent && $0.clockRate == clockRate } ?? preferred(\.isTelephoneEvent)
    }

    /// Whether the profile is secure RTP: `RTP/SAVP`, `RTP/SAVPF`, or one of the DTLS ones.
    public var isSecure: Bool { profile.hasPrefix("RTP/SAVP") || usesDTLS }
    /// Whether the profile is SRTP keyed by DTLS: `UDP/TLS/RTP/SAVP` or `UDP/TLS/RTP/SAVPF`
    /// (RFC 5764 §8). Which key exchange a call uses follows the attributes (`a=fingerprint`,
    /// `a=crypto`), not the profile: this says what the sender announced.
    public var usesDTLS: Bool { profile == "UDP/TLS/RTP/SAVP" || profile == "UDP/TLS/RTP/SAVPF" }

    private func preferred(_ matching: (RTPMap) -> Bool) -> RTPMap? {
        for payloadType in payloadTypes {
            if let map = rtpMaps.first(where: { $0.payloadType == payloadType }), matching(map) { return map }
        }
        return nil
    }

    /// The section without key material: port, profile, payload types, the suites offered, and
    /// the DTLS setup and fingerprints when there are any (no ICE password).
    public var description: String {
        "m=audio \(port) \(profile) \(payloadTypes.map(String.init).joined(separator: " ")), "
            + "crypto suites [\(crypto.map { $0.profile.sdesName }.joined(separator: ", "))]"
            + (dtls.isEmpty ? "" : ", DTLS \(dtls)") + (ice.isEmpty ? "" : ", ICE \(ice)")
    }
}
