// SPDX-License-Identifier: Apache-2.0
import SRTP

/// An SDP body (RFC 8866) in the subset a SIP stack or a WebRTC endpoint hands over for an
/// SRTP audio call: `v=`, `o=`, `s=`, `c=`, `t=`, session-level `a=group`, DTLS and ICE
/// attributes, and one `m=audio` section (others are kept out of the way: skipped when
/// parsing, never written).
///
/// `formatted` contains the `a=crypto` keys: write it where the peer reads it, never to a
/// log. `description` leaves the keys out.
public struct SessionDescription: Sendable, Equatable, CustomStringConvertible {
    /// `o=` without its prefix: `<user> <session id> <version> IN IP4 <address>`.
    public var origin: String
    /// `s=` (a single space or `-` when there is nothing to say).
    public var sessionName: String
    /// The session-level `c=`.
    public var connection: ConnectionAddress?
    /// The `m=audio` section.
    public var audio: AudioDescription?
    /// A session-level direction attribute (`a=sendonly` before the first `m=`), nil when
    /// absent; the audio section's own takes precedence.
    public var sessionDirection: MediaDirection?
    /// The session-level `a=group` lines (`a=group:BUNDLE 0`, RFC 5888, RFC 8843).
    public var groups: [MediaGroup] = []
    /// The session-level `a=fingerprint` and `a=setup`: for every media section without its own.
    public var dtls = DTLSAttributes()
    /// The session-level ICE attributes (credentials, options, end-of-candidates; candidates
    /// are media-level only): for every media section without its own.
    public var ice = ICEAttributes()

    /// A description from its parts.
    public init(origin: String, sessionName: String = "-", connection: ConnectionAddress?, audio: AudioDescription?) {
        self.origin = origin
        self.sessionName = sessionName
        self.connection = connection
        self.audio = audio
    }

    /// Where the audio goes: the media-level `c=`, else the session's.
    public var audioConnection: ConnectionAddress? { audio?.connection ?? connection }

    /// The DTLS attributes that apply to the audio: its own fingerprints if it has any, else the
    /// session's (RFC 8122 §5: media level wins); its own `a=setup`, else the session's.
    /// Fingerprints skipped for their hash function are those of the level taken.
    public var audioDTLS: DTLSAttributes {
        let media = audio?.dtls ?? DTLSAttributes()
        let fingerprintLevel = media.fingerprints.isEmpty && media.unsupportedFingerprintHashes.isEmpty ? dtls : media
        return DTLSAttributes(fingerprints: fingerprintLevel.fingerprints, unsupportedFingerprintHashes: fingerprintLevel.unsupportedFingerprintHashes,
                              setup: media.setup ?? dtls.setup)
    }

    /// The ICE attributes that apply to the audio: its own username fragment, password and
    /// options, each else the session's (RFC 8839); its candidates; end-of-candidates
    /// at either level (RFC 8840).
    public var audioICE: ICEAttributes {
        let media = audio?.ice ?? ICEAttributes()
        return ICEAttributes(usernameFragment: media.usernameFragment ?? ice.usernameFragment, password: media.password ?? ice.password,
                             options: media.options.isEmpty ? ice.options : media.options, candidates: media.candidates,
                             endOfCandidates: media.endOfCandidates || ice.endOfCandidates)
    }

    /// The audio's direction as its sender wrote it: the media-level attribute, else the
    /// session-level one, else `sendrecv` (RFC 3264 § 5.1).
    public var audioDirection: MediaDirection { audio?.direction ?? sessionDirection ?? .sendReceive }

    /// The body, lines ending in CRLF as RFC 8866 asks. Contains the keys (and the ICE
    /// password).
    public var formatted: String {
        var lines = ["v=0", "o=\(origin)", "s=\(sessionName)"]
        if let connection { lines.append("c=\(connection.value)") }
        lines.append("t=0 0")
        lines += groups.map { "a=group:\($0.attributeValue)" }
        lines += dtls.lines + ice.lines(mediaLevel: false)
        if let sessionDirection { lines.append("a=\(sessionDirection)") }
        if let audio {
            lines.append("m=audio \(audio.port) \(audio.profile) " + audio.payloadTypes.map(String.init).joined(separator: " "))
            if let connection = audio.connection { lines.append("c=\(connection.value)") }
            for map in audio.rtpMaps { lines.append("a=rtpmap:\(map.attributeValue)") }
            for payloadType in audio.payloadTypes {
                if let parameters = audio.formatParameters[payloadType] { lines.append("a=fmtp:\(payloadType) \(parameters)") }
            }
            if let ptime = audio.ptime { lines.append("a=ptime:\(ptime)") }
            if audio.rtcpMux { lines.append("a=rtcp-mux") }
            if let rtcpPort = audio.rtcpPort { lines.append("a=rtcp:\(rtcpPort)") }
            if let mid = audio.mid { lines.append("a=mid:\(mid)") }
            for crypto in audio.crypto { lines.append(crypto.attributeLine) }
            lines += audio.dtls.lines + audio.ice.lines(mediaLevel: true)
            // Written only when set (offers and answers always set it): absent reads back as
            // absent, and means the session's direction or `sendrecv`.
            if let direction = audio.direction { lines.append("a=\(direction)") }
        }
        return lines.map { $0 + "\r\n" }.joined()
    }

    /// A summary without keys (nor the ICE password).
    public var description: String {
        let address = audioConnection.map(\.address) ?? "?"
        return "SDP \(address) " + (audio.map { "\($0)" } ?? "no audio")
            + (dtls.isEmpty ? "" : ", session DTLS \(dtls)") + (ice.isEmpty ? "" : ", session ICE \(ice)")
    }
}
