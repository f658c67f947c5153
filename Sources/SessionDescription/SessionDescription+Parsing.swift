import SRTP

extension SessionDescription {
    /// Parses an SDP body (LF or CRLF line ends).
    ///
    /// Takes the first `m=audio` section and skips other media sections and unknown
    /// attributes. `a=crypto` lines naming a suite we do not support are listed in
    /// `unsupportedSuites` and otherwise skipped (offers often list several).
    ///
    /// - Throws: `SessionDescriptionError.malformed` naming the line number and kind of the
    ///   first line that is not what its kind takes, or `.crypto` for an `a=crypto` line with
    ///   a known suite that is malformed (the line itself is never quoted: it holds a key).
    public init(parsing text: String) throws(SessionDescriptionError) {
        var origin = "-"
        var sessionName = "-"
        var connection: ConnectionAddress?
        var audio: AudioDescription?
        // Which section the lines belong to: the session, our audio section, or one we skip.
        enum Section { case session, audio, skipped }
        var section = Section.session

        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let number = index + 1
            let line = rawLine.trimmingSpaces()
            if line.isEmpty { continue }
            guard line.count >= 2, line.dropFirst().first == "=" else {
                throw .malformed(line: number, kind: "?", reason: "not <type>=<value>")
            }
            let type = line.first!
            let value = line.dropFirst(2)
            if type == "m" {
                let fields = value.split(separator: " ")
                guard fields.count >= 3 else { throw .malformed(line: number, kind: "m=", reason: "needs <media> <port> <proto> <formats>") }
                if fields[0] == "audio" && audio == nil {
                    let portText = fields[1].split(separator: "/").first ?? ""
                    guard let port = UInt16(portText) else {
                        throw .malformed(line: number, kind: "m=", reason: "port \(String(fields[1]).debugDescription) is not 0…65535")
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
            default:
                continue  // v=, t=, b=, session-level a=, …: nothing we use
            }
        }
        self.init(origin: origin, sessionName: sessionName, connection: connection, audio: audio)
    }

    private static func parseAttribute(_ value: Substring, line number: Int, into audio: inout AudioDescription) throws(SessionDescriptionError) {
        let name: Substring
        let argument: Substring
        if let colon = value.firstIndex(of: ":") {
            name = value[..<colon]
            argument = value[value.index(after: colon)...]
        } else {
            name = value
            argument = ""
        }
        switch name {
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
        case "rtcp":
            guard let port = argument.split(separator: " ").first.flatMap({ UInt16($0) }) else {
                throw .malformed(line: number, kind: "a=rtcp", reason: "needs <port> [IN IP4|IP6 <address>]")
            }
            audio.rtcpPort = port
        case "crypto":
            do {
                audio.crypto.append(try SDESCryptoAttribute(parsing: String(argument)))
            } catch .unsupportedSuite(let suite) {
                audio.unsupportedSuites.append(suite)
            } catch {
                throw .crypto(line: number, error)
            }
        default:
            break
        }
    }
}
