// SPDX-License-Identifier: Apache-2.0
import SRTP

extension SessionDescription {
    /// Parses an SDP body (LF or CRLF line ends).
    ///
    /// Takes the first `m=audio` section with a port (a port of 0 is a rejected or disabled
    /// stream, RFC 3264) and skips other media sections and unknown attributes. `a=crypto`
    /// lines naming a suite we do not support are listed in `unsupportedSuites` and otherwise
    /// skipped (offers often list several); so are `a=fingerprint` lines naming a hash function
    /// we do not support (`DTLSAttributes.unsupportedFingerprintHashes`). `a=fingerprint`,
    /// `a=setup` and the ICE credentials and options are read at session and media level,
    /// `a=group` at session level, `a=mid` and `a=candidate` at media level.
    ///
    /// - Throws: `SessionDescriptionError.malformed` naming the line number and kind of the
    ///   first line that is not what its kind takes (a control character such as NUL anywhere
    ///   in a line included: RFC 8866 text never holds one), `.crypto` for an `a=crypto` line
    ///   with a known suite that is malformed (the line itself is never quoted: it holds a
    ///   key), `.unprotectedCrypto` for one asking for unencrypted or unauthenticated SRTP,
    ///   `.audioRejected` when the only audio sections have port 0, `.ice` for an ICE attribute
    ///   RFC 8839 does not allow (a candidate's port above 65535, a priority of 0, …). A
    ///   malformed `a=fingerprint`, `a=setup`, `a=mid` or `a=group`, one given twice where only
    ///   one may be, or more of a kind than we keep, is `.malformed`.
    public init(parsing text: String) throws(SessionDescriptionError) {
        var origin = "-"
        var sessionName = "-"
        var connection: ConnectionAddress?
        var audio: AudioDescription?
        var sessionDirection: MediaDirection?
        var groups: [MediaGroup] = []
        var sessionDTLS = DTLSAttributes()
        var sessionICE = ICEAttributes()
        // Which section the lines belong to: the session, our audio section, or one we skip.
        enum Section { case session, audio, skipped }
        var section = Section.session
        var rejectedAudioLine: Int?

        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let number = index + 1
            let line = rawLine.trimmingSpaces()
            if line.isEmpty { continue }
            guard line.count >= 2, line.dropFirst().first == "=" else {
                throw .malformed(line: number, kind: "?", reason: "not <type>=<value>")
            }
            let type = line.first!
            let value = line.dropFirst(2)
            if let control = line.unicodeScalars.first(where: Self.isControl) {
                let kind = type.unicodeScalars.contains(where: Self.isControl) ? "?" : "\(type)="
                throw .malformed(line: number, kind: kind, reason: "contains control character U+\(Self.hex(control))")
            }
            if type == "m" {
                let fields = value.split(separator: " ")
                guard fields.count >= 3 else { throw .malformed(line: number, kind: "m=", reason: "needs <media> <port> <proto> <formats>") }
                if fields[0] == "audio" && audio == nil {
                    let portText = fields[1].split(separator: "/").first ?? ""
                    guard let port = UInt16(portText) else {
                        throw .malformed(line: number, kind: "m=", reason: "port \(String(fields[1]).debugDescription) is not 0…65535")
                    }
                    guard port != 0 else {
                        // Rejected or disabled (RFC 3264 §5.1, §6): not a stream to send to.
                        rejectedAudioLine = rejectedAudioLine ?? number
                        section = .skipped
                        continue
                    }
                    var payloadTypes: [UInt8] = []
                    for field in fields.dropFirst(3) {
                        guard let payloadType = UInt8(field), payloadType < 128 else {
                            throw .malformed(line: number, kind: "m=", reason: "payload type \(String(field).debugDescription) is not 0…127")
                        }
                        payloadTypes.append(payloadType)
                    }
                    audio = AudioDescription(port: port, profile: String(fields[2]), payloadTypes: payloadTypes)
                    section = .audio
                } else {
                    section = .skipped
                }
                continue
            }
            switch (section, type) {
            case (.skipped, _):
                continue
            case (.session, "o"):
                origin = String(value)
            case (.session, "s"):
                sessionName = String(value)
            case (_, "c"):
                guard let parsed = ConnectionAddress(value: value) else {
                    throw .malformed(line: number, kind: "c=", reason: "needs IN IP4|IP6 <address>, got \(String(value).debugDescription)")
                }
                if section == .audio { audio?.connection = parsed } else { connection = parsed }
            case (.audio, "a"):
                try Self.parseAttribute(value, line: number, into: &audio!)
            case (.session, "a"):
                let (name, argument) = Self.splitAttribute(value)
                if try Self.parseTransportAttribute(name, argument, line: number, dtls: &sessionDTLS, ice: &sessionICE) { continue }
                if name == "group" {
                    groups.append(try Self.parseGroup(argument, line: number, count: groups.count))
                } else if let direction = MediaDirection(rawValue: String(value)) {
                    sessionDirection = direction
                }
            default:
                continue  // v=, t=, b=, …: nothing we use
            }
        }
        if audio == nil, let rejectedAudioLine { throw .audioRejected(line: rejectedAudioLine) }
        self.init(origin: origin, sessionName: sessionName, connection: connection, audio: audio)
        self.sessionDirection = sessionDirection
        self.groups = groups
        self.dtls = sessionDTLS
        self.ice = sessionICE
    }

    /// C0 controls but tab, and DEL: RFC 8866 text fields exclude NUL, CR and LF, and no field
    /// we read has a use for the others.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }

    private static func hex(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func parseAttribute(_ value: Substring, line number: Int, into audio: inout AudioDescription) throws(SessionDescriptionError) {
        let (name, argument) = splitAttribute(value)
        if try parseTransportAttribute(name, argument, line: number, dtls: &audio.dtls, ice: &audio.ice) { return }
        switch name {
        case "candidate":
            try parseCandidate(argument, line: number, into: &audio.ice)
        case "mid":
            audio.mid = try parseMID(argument, line: number, current: audio.mid)
        case "rtpmap":
            guard let map = RTPMap(value: argument) else {
                throw .malformed(line: number, kind: "a=rtpmap", reason: "needs <pt> <encoding>/<clock rate>[/<channels>], got \(String(argument).debugDescription)")
            }
            audio.rtpMaps.append(map)
        case "fmtp":
            let parts = argument.split(separator: " ", maxSplits: 1)
            guard let first = parts.first, let payloadType = UInt8(first), payloadType < 128 else {
                throw .malformed(line: number, kind: "a=fmtp", reason: "needs <pt> <parameters>")
            }
            audio.formatParameters[payloadType] = parts.count > 1 ? String(parts[1].trimmingSpaces()) : ""
        case "ptime":
            guard let ptime = Int(argument.trimmingSpaces()), (1...1_000).contains(ptime) else {
                throw .malformed(line: number, kind: "a=ptime", reason: "needs milliseconds 1…1000, got \(String(argument).debugDescription)")
            }
            audio.ptime = ptime
        case "rtcp-mux":
            audio.rtcpMux = true
        case "sendrecv", "sendonly", "recvonly", "inactive":
            audio.direction = MediaDirection(rawValue: String(name))
        case "rtcp":
            guard let port = argument.split(separator: " ").first.flatMap({ UInt16($0) }) else {
                throw .malformed(line: number, kind: "a=rtcp", reason: "needs <port> [IN IP4|IP6 <address>]")
            }
            audio.rtcpPort = port
        case "crypto":
            let attribute: SDESCryptoAttribute
            do {
                attribute = try SDESCryptoAttribute(parsing: String(argument))
            } catch .unsupportedSuite(let suite) {
                audio.unsupportedSuites.append(suite)
                return
            } catch {
                throw .crypto(line: number, error)
            }
            if let parameter = attribute.unprotectingParameter { throw .unprotectedCrypto(line: number, parameter: parameter) }
            audio.crypto.append(attribute)
        default:
            break
        }
    }
}
