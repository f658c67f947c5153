// SPDX-License-Identifier: Apache-2.0
import SRTP
import SessionDescription
import Testing

/// DTLS-SRTP's and ICE's attributes as SDP carries them: `a=fingerprint` (RFC 8122), `a=setup`
/// (RFC 4145), `a=mid` and `a=group` (RFC 5888, RFC 8843), `a=ice-ufrag`, `a=ice-pwd`,
/// `a=ice-options`, `a=candidate` (RFC 8839), `a=end-of-candidates` (RFC 8840), and the DTLS
/// transport profiles (RFC 5764 §8).
@Suite struct TransportAttributeTests {
    /// A SHA-256 fingerprint whose bytes are 0x00…0x1F, and its SDP value.
    static let sha256Digest = (0..<32).map { UInt8($0) }
    static let sha256Value = "sha-256 " + sha256Digest.map { String(format2: $0) }.joined(separator: ":")
    static let sha1Value = "sha-1 " + (0..<20).map { String(format2: UInt8(0xE0 + $0)) }.joined(separator: ":")
    static let head = "v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\n"
    static let media = "m=audio 40000 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n"

    /// Every new attribute at the level it belongs to.
    static let full = head
        + "a=group:BUNDLE 0\r\n"
        + "a=fingerprint:\(sha1Value)\r\n"
        + "a=setup:actpass\r\n"
        + "a=ice-ufrag:sess\r\n"
        + "a=ice-pwd:sessionpasswordsessionpw\r\n"
        + "a=ice-options:trickle ice2\r\n"
        + media
        + "a=rtcp-mux\r\n"
        + "a=mid:0\r\n"
        + "a=fingerprint:\(sha256Value)\r\n"
        + "a=setup:active\r\n"
        + "a=ice-ufrag:8hhY\r\n"
        + "a=ice-pwd:asd88fgpdd777uzjYhagZg+/\r\n"
        + "a=candidate:1 1 UDP 2130706431 192.0.2.7 50000 typ host generation 0 network-id 1\r\n"
        + "a=candidate:2 1 udp 1694498815 198.51.100.3 61234 typ srflx raddr 192.0.2.7 rport 50000\r\n"
        + "a=candidate:3 1 TCP 1518280447 192.0.2.7 9 typ host tcptype active\r\n"
        + "a=candidate:4 1 UDP 16777215 203.0.113.9 3478 typ relay raddr 198.51.100.3 rport 61234\r\n"
        + "a=candidate:5 2 UDP 2130706430 f3b8e1a2-0c44-4c59-9d3d-1b5c2a4c1e77.local 50001 typ host\r\n"
        + "a=end-of-candidates\r\n"

    @Test func everyAttributeIsReadAtItsLevel() throws {
        let sdp = try SessionDescription(parsing: Self.full)
        let audio = try #require(sdp.audio)
        #expect(sdp.groups == [MediaGroup.bundle(["0"])])
        #expect(sdp.groups.first?.isBundle == true)
        #expect(sdp.dtls.fingerprints.map(\.hashFunction) == [.sha1])
        #expect(sdp.dtls.setup == .actpass)
        #expect(sdp.ice.usernameFragment == "sess" && sdp.ice.password == "sessionpasswordsessionpw")
        #expect(sdp.ice.options == ["trickle", "ice2"] && sdp.ice.trickle)
        #expect(audio.mid == "0")
        #expect(audio.dtls.fingerprints == [try #require(CertificateFingerprint(hashFunction: .sha256, digest: Self.sha256Digest))])
        #expect(audio.dtls.setup == .active)
        #expect(audio.ice.usernameFragment == "8hhY" && audio.ice.password == "asd88fgpdd777uzjYhagZg+/")
        #expect(audio.ice.endOfCandidates)
        #expect(audio.usesDTLS && audio.isSecure)

        let candidates = audio.ice.candidates
        #expect(candidates.map(\.foundation) == ["1", "2", "3", "4", "5"])
        #expect(candidates.map(\.type) == [.host, .serverReflexive, .host, .relayed, .host])
        #expect(candidates.map(\.transport) == [.udp, .udp, .other("TCP"), .udp, .udp])
        #expect(candidates.map(\.componentID) == [1, 1, 1, 1, 2])
        #expect(candidates[0].priority == 2_130_706_431 && candidates[0].address == "192.0.2.7" && candidates[0].port == 50000)
        #expect(candidates[0].extensions == [.init(name: "generation", value: "0"), .init(name: "network-id", value: "1")])
        #expect(candidates[1].relatedAddress == "192.0.2.7" && candidates[1].relatedPort == 50000)
        #expect(candidates[2].extensions == [.init(name: "tcptype", value: "active")])
        #expect(candidates[4].address == "f3b8e1a2-0c44-4c59-9d3d-1b5c2a4c1e77.local")
    }

    /// What parses is written back line for line (`udp` as `UDP`), and reads back the same.
    @Test func everyAttributeRoundTrips() throws {
        let sdp = try SessionDescription(parsing: Self.full)
        let text = sdp.formatted
        for line in Self.full.split(separator: "\r\n") where line.hasPrefix("a=") && !line.hasPrefix("a=rtpmap") {
            let written = line.replacingOccurrences(of: " udp ", with: " UDP ")
            #expect(text.contains(written + "\r\n"), "\(written) not written back")
        }
        #expect(try SessionDescription(parsing: text) == sdp)
        // Session-level lines stay before the m= line, media-level ones after it.
        let mLine = try #require(text.range(of: "m=audio"))
        #expect(text.range(of: "a=group:BUNDLE 0")!.lowerBound < mLine.lowerBound)
        #expect(text.range(of: "a=setup:actpass")!.lowerBound < mLine.lowerBound)
        #expect(text.range(of: "a=setup:active")!.lowerBound > mLine.lowerBound)
        #expect(text.range(of: "a=mid:0")!.lowerBound > mLine.lowerBound)
    }

    /// RFC 8122 §5: a media section's fingerprints replace the session's; setup and the ICE
    /// credentials fall back one by one.
    @Test func theMediaLevelWinsAndTheSessionLevelFillsIn() throws {
        let sdp = try SessionDescription(parsing: Self.full)
        #expect(sdp.audioDTLS.fingerprints.map(\.hashFunction) == [.sha256])
        #expect(sdp.audioDTLS.setup == .active)
        #expect(sdp.audioICE.usernameFragment == "8hhY" && sdp.audioICE.candidates.count == 5)

        let sessionOnly = Self.head + "a=fingerprint:\(Self.sha1Value)\r\na=setup:passive\r\na=ice-ufrag:sess\r\na=ice-pwd:sessionpasswordsessionpw\r\n"
            + "a=ice-options:trickle\r\n" + Self.media + "a=ice-ufrag:8hhY\r\n"
        let fallback = try SessionDescription(parsing: sessionOnly)
        #expect(fallback.audio?.dtls.isEmpty == true)
        #expect(fallback.audioDTLS.fingerprints.map(\.hashFunction) == [.sha1])
        #expect(fallback.audioDTLS.setup == .passive)
        #expect(fallback.audioICE.usernameFragment == "8hhY", "the media level's own")
        #expect(fallback.audioICE.password == "sessionpasswordsessionpw", "the session's")
        #expect(fallback.audioICE.trickle)
    }

    /// A hash function we do not check is skipped and recorded (as an a=crypto suite we do not
    /// run is), at either level; the usable ones are kept.
    @Test func unsupportedHashFunctionsAreSkippedAndRecorded() throws {
        let text = Self.head + "a=fingerprint:md5 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF\r\n" + Self.media
            + "a=fingerprint:sha-3-256 AB:CD\r\na=fingerprint:\(Self.sha256Value.uppercased())\r\n"
        let sdp = try SessionDescription(parsing: text)
        #expect(sdp.dtls.fingerprints.isEmpty && sdp.dtls.unsupportedFingerprintHashes == ["md5"])
        #expect(sdp.audio?.dtls.unsupportedFingerprintHashes == ["sha-3-256"])
        #expect(sdp.audio?.dtls.fingerprints.map(\.digest) == [Self.sha256Digest], "the hash name is case-insensitive")
        // Not written back (like unsupported suites): nothing the peer can use.
        #expect(!sdp.formatted.contains("md5") && !sdp.formatted.contains("sha-3-256"))
        #expect(sdp.formatted.contains("a=fingerprint:\(Self.sha256Value.replacingOccurrences(of: "SHA", with: "sha"))\r\n"))
    }

    @Test func theDTLSProfilesAreSecure() throws {
        for (profile, secure, dtls) in [("UDP/TLS/RTP/SAVPF", true, true), ("UDP/TLS/RTP/SAVP", true, true), ("RTP/SAVPF", true, false),
                                        ("RTP/SAVP", true, false), ("RTP/AVP", false, false), ("UDP/TLS/RTP/AVPF", false, false)] {
            let audio = AudioDescription(port: 1, profile: profile)
            #expect(audio.isSecure == secure && audio.usesDTLS == dtls, "\(profile)")
        }
        let parsed = try SessionDescription(parsing: Self.head + "m=audio 9 UDP/TLS/RTP/SAVP 0\r\n")
        #expect(parsed.audio?.profile == "UDP/TLS/RTP/SAVP" && parsed.audio?.usesDTLS == true)
    }

    /// A forged or malformed line is an error naming it (number and kind), never a trap; a
    /// number is checked before it is one.
    @Test(arguments: [
        ("a=fingerprint:sha-256 ZZ" + String(repeating: ":00", count: 31), "a=fingerprint"),
        ("a=fingerprint:sha-256 00:11", "a=fingerprint"),  // 2 bytes, not 32
        ("a=fingerprint:sha-256 " + String(repeating: "00:", count: 32) + "00", "a=fingerprint"),  // 33
        ("a=fingerprint:sha-256 000:11" + String(repeating: ":00", count: 30), "a=fingerprint"),
        ("a=fingerprint:sha-256", "a=fingerprint"),
        ("a=fingerprint:md5", "a=fingerprint"),
        ("a=fingerprint:m(d)5 00:11", "a=fingerprint"),
        ("a=setup:client", "a=setup"),
        ("a=setup:", "a=setup"),
        ("a=mid:a b", "a=mid"),
        ("a=mid:", "a=mid"),
        ("a=mid:" + String(repeating: "m", count: 65), "a=mid"),
    ])
    func malformedDTLSLinesAreNamed(line: String, kind: String) throws {
        let error = try #require(parsing(Self.head + Self.media + line + "\r\n"), "accepted \(line)")
        guard case let .malformed(number, lineKind, _) = error else { Issue.record("\(error)"); return }
        #expect(number == 8 && lineKind == kind, "\(error)")
        #expect("\(error)".contains("SDP line 8 (\(kind))"), "\(error)")
    }

    @Test(arguments: ["a=setup:active\r\na=setup:passive", "a=mid:0\r\na=mid:1", "a=ice-ufrag:abcd\r\na=ice-ufrag:efgh",
                      "a=ice-pwd:asd88fgpdd777uzjYhagZg\r\na=ice-pwd:asd88fgpdd777uzjYhagZg"])
    func anAttributeGivenTwiceAtOneLevelIsRefused(lines: String) throws {
        let error = try #require(parsing(Self.head + Self.media + lines + "\r\n"))
        guard case let .malformed(9, _, reason) = error else { Issue.record("\(error)"); return }
        #expect(reason.contains("twice"), "\(error)")
    }

    @Test func malformedGroupsAreNamed() throws {
        for line in ["a=group:", "a=group:BUNDLE 0 a;b", "a=group:BUNDLE " + (0...16).map(String.init).joined(separator: " ")] {
            let error = try #require(parsing(Self.head + line + "\r\n" + Self.media), "accepted \(line)")
            guard case .malformed(6, "a=group", _) = error else { Issue.record("\(line): \(error)"); continue }
        }
        // An empty BUNDLE group is one (RFC 8843 §7.1); the ninth group is one too many.
        #expect(try SessionDescription(parsing: Self.head + "a=group:BUNDLE\r\n" + Self.media).groups == [.bundle([])])
        let nine = String(repeating: "a=group:LS 0\r\n", count: 9)
        #expect(parsing(Self.head + nine + Self.media) == .malformed(line: 14, kind: "a=group", reason: "more than 8 groups"))
    }

    /// RFC 8839 §5.1's numbers out of range, and what is not a candidate, on the wire: the
    /// error names the line and the field.
    @Test(arguments: [
        ("1 1 UDP 2130706431 192.0.2.7 70000 typ host", ICEAttributeError.invalidField("port", value: "\"70000\"", allowed: "0…65535")),
        ("1 1 UDP 0 192.0.2.7 5000 typ host", .invalidField("priority", value: "\"0\"", allowed: "1…2147483647")),
        ("1 1 UDP 2147483648 192.0.2.7 5000 typ host", .invalidField("priority", value: "\"2147483648\"", allowed: "1…2147483647")),
        ("1 1 UDP 99999999999999999999999 192.0.2.7 5000 typ host",
         .invalidField("priority", value: "\"99999999999999999999999\"", allowed: "1…2147483647")),
        ("1 1 UDP +5 192.0.2.7 5000 typ host", .invalidField("priority", value: "\"+5\"", allowed: "1…2147483647")),
        ("1 0 UDP 5 192.0.2.7 5000 typ host", .invalidField("component-id", value: "\"0\"", allowed: "1…256")),
        ("1 257 UDP 5 192.0.2.7 5000 typ host", .invalidField("component-id", value: "\"257\"", allowed: "1…256")),
        ("1 1 UDP 5 192.0.2.7 5000 typ hostile", .unknownCandidateType("hostile")),
        ("1 1 UDP 5 192.0.2.7 5000 type host", .invalidField("typ", value: "\"type\"", allowed: "\"typ\" after the port")),
        ("1 1 UDP 5 192.0.2.7 5000", .missingField("typ")),
        ("1 1 UDP 5 192.0.2.7 5000 typ", .missingField("candidate type")),
        ("", .missingField("foundation")),
        ("1 1 UDP 5 192.0.2.7 5000 typ srflx raddr", .missingField("raddr's address")),
        ("1 1 UDP 5 192.0.2.7 5000 typ srflx raddr 192.0.2.1 rport 65536", .invalidField("rport", value: "\"65536\"", allowed: "0…65535")),
        ("1 1 UDP 5 192.0.2.7 5000 typ host generation", .extensionWithoutValue("generation")),
        ("1 1 UDP 5 192.0.2.7;x 5000 typ host",
         .invalidField("connection-address", value: "\"192.0.2.7;x\"", allowed: "an IPv4 or IPv6 address or a host name")),
        ("f(o) 1 UDP 5 192.0.2.7 5000 typ host", .invalidField("foundation", value: "\"f(o)\"", allowed: "1…32 of A–Z a–z 0–9 + /")),
        ("1 1 UDP 5 192.0.2.7 5000 typ host" + String(repeating: " x 1", count: 17), .tooManyExtensions(limit: 16)),
    ])
    func forgedCandidatesAreTypedErrors(value: String, expected: ICEAttributeError) throws {
        let error = try #require(parsing(Self.head + Self.media + "a=candidate:\(value)\r\n"), "accepted \(value)")
        #expect(error == .ice(line: 8, kind: "a=candidate", expected))
        #expect("\(error)".hasPrefix("SDP line 8 (a=candidate): ICE: "), "\(error)")
        // The same text alone, as trickle ICE signals it.
        #expect(throws: expected) { try ICECandidate(parsing: "candidate:" + value) }
    }

    @Test func iceCredentialsAndOptionsAreChecked() throws {
        let longPassword = String(repeating: "p", count: 257)
        let error = try #require(parsing(Self.head + Self.media + "a=ice-pwd:\(longPassword)\r\n"))
        #expect(error == .ice(line: 8, kind: "a=ice-pwd", .invalidField("ice-pwd", value: "<257 characters>", allowed: "1…256 of A–Z a–z 0–9 + /")))
        #expect(!"\(error)".contains("ppppp"), "the password is never quoted")
        #expect(parsing(Self.head + Self.media + "a=ice-ufrag:ab$c\r\n")
            == .ice(line: 8, kind: "a=ice-ufrag", .invalidField("ice-ufrag", value: "\"ab$c\"", allowed: "1…256 of A–Z a–z 0–9 + /")))
        #expect(parsing(Self.head + Self.media + "a=ice-options:\r\n") == .ice(line: 8, kind: "a=ice-options", .missingField("ice-option-tag")))
        #expect(parsing(Self.head + Self.media + "a=ice-options:" + Array(repeating: "t", count: 17).joined(separator: " ") + "\r\n")
            == .ice(line: 8, kind: "a=ice-options", .tooManyOptions(limit: 16)))
        // Short credentials from older stacks are kept for the ICE layer to judge.
        #expect(try SessionDescription(parsing: Self.head + Self.media + "a=ice-ufrag:ab\r\n").audio?.ice.usernameFragment == "ab")
        // The description shows the fragment, never the password.
        let sdp = try SessionDescription(parsing: Self.full)
        #expect("\(sdp)".contains("ufrag 8hhY") && !"\(sdp)".contains("asd88fgpdd777") && !"\(sdp)".contains("sessionpassword"), "\(sdp)")
    }

    @Test func candidatesPerSectionAreBounded() throws {
        let candidates = (1...65).map { "a=candidate:\($0) 1 UDP 5 192.0.2.7 \(5000 + $0) typ host\r\n" }
        #expect(try SessionDescription(parsing: Self.head + Self.media + candidates.dropLast().joined()).audio?.ice.candidates.count == 64)
        #expect(parsing(Self.head + Self.media + candidates.joined())
            == .malformed(line: 72, kind: "a=candidate", reason: "more than 64 in one section"))
    }

    /// A candidate parses from its attribute value with or without `candidate:` / `a=candidate:`,
    /// prints itself, and refuses in code what it refuses on the wire.
    @Test func aCandidateParsesAndPrintsItself() throws {
        let value = "842163049 1 udp 1677729535 198.51.100.3 61234 typ srflx raddr 0.0.0.0 rport 0 generation 0 ufrag 8hhY network-cost 999"
        let candidate = try ICECandidate(parsing: value)
        #expect(try ICECandidate(parsing: "candidate:" + value) == candidate)
        #expect(try ICECandidate(parsing: "a=candidate:" + value) == candidate)
        #expect(candidate.attributeValue == value.replacingOccurrences(of: " udp ", with: " UDP "))
        #expect("\(candidate)" == "candidate:" + candidate.attributeValue)
        #expect(try ICECandidate(parsing: candidate.attributeValue) == candidate)
        #expect(candidate.relatedAddress == "0.0.0.0" && candidate.relatedPort == 0 && candidate.extensions.count == 3)

        let built = try ICECandidate(foundation: "1", componentID: 1, priority: 2_130_706_431, address: "2001:db8::7", port: 5004, type: .host)
        #expect(built.attributeValue == "1 1 UDP 2130706431 2001:db8::7 5004 typ host")
        #expect(throws: ICEAttributeError.self) {
            try ICECandidate(foundation: "1\r\na=crypto", componentID: 1, priority: 1, address: "192.0.2.1", port: 1, type: .host)
        }
        #expect(throws: ICEAttributeError.self) {
            try ICECandidate(foundation: "1", componentID: 1, priority: 1, address: "192.0.2.1\r\n", port: 1, type: .host)
        }
        #expect(throws: ICEAttributeError.self) {
            try ICECandidate(foundation: "1", componentID: 1, priority: 1, address: "192.0.2.1", port: 1, type: .host,
                             extensions: [.init(name: "ufrag", value: "a b")])
        }
        // An extension named rport where the related port goes would read back as the port.
        #expect(throws: ICEAttributeError.invalidField("extension name", value: "\"rport\"", allowed: "raddr or rport where it reads back as one")) {
            try ICECandidate(foundation: "1", componentID: 1, priority: 1, address: "192.0.2.1", port: 1, type: .host,
                             extensions: [.init(name: "rport", value: "5")])
        }
        #expect(try ICECandidate(parsing: "1 1 UDP 1 192.0.2.1 1 typ host rport 5 raddr x rport 6").extensions.map(\.name) == ["raddr", "rport"])
        #expect(throws: ICEAttributeError.invalidField("priority", value: "0", allowed: "1…2147483647")) {
            try ICECandidate(foundation: "1", componentID: 1, priority: 0, address: "192.0.2.1", port: 1, type: .host)
        }
        #expect(throws: ICEAttributeError.invalidField("component-id", value: "257", allowed: "1…256")) {
            try ICECandidate(foundation: "1", componentID: 257, priority: 1, address: "192.0.2.1", port: 1, type: .host)
        }
    }

    func parsing(_ text: String) -> SessionDescriptionError? {
        do {
            _ = try SessionDescription(parsing: text)
            return nil
        } catch { return error }
    }
}

extension String {
    /// A byte as two upper-case hex digits.
    init(format2 byte: UInt8) {
        let digits = String(byte, radix: 16, uppercase: true)
        self = digits.count == 1 ? "0" + digits : digits
    }
}
