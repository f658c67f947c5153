// SPDX-License-Identifier: Apache-2.0
import Foundation
import SRTP
import SessionDescription
import Testing

/// Issue 26, "Hardening, round 2": SDP bodies that used to be accepted and then failed (or
/// worked in the attacker's favour) further on are refused at parse, naming their line; and
/// every suite the SRTP layer runs is one an offer may use.
@Suite struct HostileDescriptionTests {
    static let head = "v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nt=0 0\r\n"

    /// An offer of one `a=crypto` line of `profile`, with `extra` after its key.
    static func offer(_ profile: SRTPProfile = .aesCM128HmacSha1_80, port: String = "40000", connection: String = "c=IN IP4 192.0.2.10",
                      extra: String = "") -> String {
        let key = Data(SRTPKeyingMaterial.random(profile: profile).keyAndSalt).base64EncodedString()
        return head + connection + "\r\nm=audio \(port) RTP/SAVP 111\r\na=rtpmap:111 opus/48000/2\r\n"
            + "a=crypto:1 \(profile.sdesName) inline:\(key)\(extra)\r\n"
    }

    func parsing(_ text: String) -> SessionDescriptionError? {
        do {
            _ = try SessionDescription(parsing: text)
            return nil
        } catch { return error }
    }

    /// `m=audio 0` (a rejected or disabled stream, RFC 3264) used to parse and fail at
    /// `sendto` with "Invalid argument": now its line is named.
    @Test func audioOnPortZeroIsRefusedNamingItsLine() throws {
        let error = try #require(parsing(Self.offer(port: "0")))
        #expect(error == .audioRejected(line: 6))
        #expect("\(error)".contains("SDP line 6 (m=)"), "\(error)")
        // A later audio section with a port is the one taken.
        let both = Self.offer(port: "0") + "m=audio 40002 RTP/SAVP 111\r\na=rtpmap:111 opus/48000/2\r\n"
        #expect(try SessionDescription(parsing: both).audio?.port == 40002)
        // Built in code rather than parsed, it is refused when answered.
        var built = try SessionDescription(parsing: Self.offer())
        built.audio?.port = 0
        #expect(throws: SessionDescriptionError.audioRejected(line: nil)) {
            try built.answer(from: LocalAudio(address: "127.0.0.1", port: 1)) { SRTPKeyingMaterial.random(profile: $0) }
        }
    }

    /// A NUL in `c=` (which C code reading the address cuts short: `127.0.0.1\0evil` was sent
    /// to 127.0.0.1) and other characters no address has are refused on that line.
    @Test(arguments: ["c=IN IP4 127.0.0.1\u{0}evil", "c=IN IP4 127.0.0.1\u{1B}", "c=IN IP4 ::1", "c=IN IP6 ::1%eth0",
                      "c=IN IP4 127.0.0.1;rm", "c=IN IP4 \u{FF10}.0.0.1"])
    func connectionAddressesThatAreNoAddressAreRefused(line: String) throws {
        let error = try #require(parsing(Self.offer(connection: line)), "accepted \(line.debugDescription)")
        guard case let .malformed(number, kind, _) = error else { Issue.record("\(error)"); return }
        #expect(number == 5 && kind == "c=", "\(error)")
    }

    /// A control character anywhere (here after an attribute's value) is refused on its line.
    @Test func controlCharactersAreRefusedOnTheirLine() throws {
        let text = Self.offer().replacingOccurrences(of: "a=rtpmap:111 opus/48000/2", with: "a=rtpmap:111 opus/48000/2\u{0}x")
        let error = try #require(parsing(text))
        #expect(error == .malformed(line: 7, kind: "a=", reason: "contains control character U+0000"))
        // Host names and IPv6 addresses still parse.
        #expect(try SessionDescription(parsing: Self.offer(connection: "c=IN IP4 media.example.com")).audioConnection?.address == "media.example.com")
        #expect(try SessionDescription(parsing: Self.offer(connection: "c=IN IP6 2001:db8::7")).audioConnection?.address == "2001:db8::7")
    }

    /// An offer of only AES-256 or AEAD-GCM used to be refused with a message that listed the
    /// refused suite among those "we support": every suite SRTPSession runs is accepted now.
    @Test(arguments: [SRTPProfile.aes256CMHmacSha1_80, .aes256CMHmacSha1_32, .aeadAES128GCM, .aeadAES256GCM])
    func everySuiteTheSRTPLayerRunsIsAnswered(profile: SRTPProfile) throws {
        let offer = try SessionDescription(parsing: Self.offer(profile))
        let (answer, negotiated) = try offer.answer(from: LocalAudio(address: "127.0.0.1", port: 5_000)) { SRTPKeyingMaterial.random(profile: $0) }
        #expect(negotiated.profile == profile)
        #expect(answer.audio?.crypto.map(\.profile) == [profile])
        // Both sides' keys work with the SRTP layer: what one protects, the other unprotects.
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: try #require(negotiated.sendingKey))
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: try #require(answer.audio?.crypto.first).keyingMaterial)
        let packet: [UInt8] = [0x80, 111, 0, 1, 0, 0, 0, 160, 0, 0, 0, 7] + Array(repeating: 0x55, count: 40)
        var buffer = packet + [UInt8](repeating: 0, count: 256)
        let length = try buffer.withUnsafeMutableBytes { raw throws(SRTPError) in
            try receiver.unprotect(raw, length: try sender.protect(raw, length: packet.count))
        }
        #expect(Array(buffer[..<length]) == packet)
    }

    /// The refusal lists what this side accepts, never a suite it does not.
    @Test func noCommonSuiteListsWhatThisSideAccepts() throws {
        var local = LocalAudio(address: "127.0.0.1", port: 1)
        local.suites = [.aesCM128HmacSha1_80]
        let error = try #require(throws: SessionDescriptionError.self) {
            try SessionDescription(parsing: Self.offer(.aeadAES256GCM)).answer(from: local) { SRTPKeyingMaterial.random(profile: $0) }
        }
        #expect(error == .noCommonSuite(offered: ["AEAD_AES_256_GCM"], accepted: ["AES_CM_128_HMAC_SHA1_80"]))
        #expect("\(error)".contains("we accept AES_CM_128_HMAC_SHA1_80)"), "\(error)")
        #expect(LocalAudio(address: "127.0.0.1", port: 1).suites.count == SRTPProfile.allCases.count)
        #expect(Set(LocalAudio.supportedSuites) == Set(SRTPProfile.allCases))
    }

    /// `UNENCRYPTED_SRTP`, `UNENCRYPTED_SRTCP`, `UNAUTHENTICATED_SRTP` (RFC 4568 §6.3) were
    /// accepted, and plaintext media flowed without a word: refused now, naming the line.
    @Test(arguments: ["UNENCRYPTED_SRTP", "UNENCRYPTED_SRTCP", "UNAUTHENTICATED_SRTP", "unencrypted_srtp"])
    func unprotectedSRTPIsRefused(parameter: String) throws {
        let error = try #require(parsing(Self.offer(extra: " KDR=0 \(parameter)")))
        #expect(error == .unprotectedCrypto(line: 8, parameter: parameter))
        #expect("\(error)".contains("SDP line 8 (a=crypto)"), "\(error)")
        // Other session parameters are still kept.
        #expect(try SessionDescription(parsing: Self.offer(extra: " KDR=0")).audio?.crypto.first?.sessionParameters == ["KDR=0"])
    }

    /// What parses is written back as a body that parses to the same description.
    @Test func whatParsesRoundTrips() throws {
        for profile in SRTPProfile.allCases {
            let sdp = try SessionDescription(parsing: Self.offer(profile, extra: "|2^20|1:4 KDR=1"))
            #expect(try SessionDescription(parsing: sdp.formatted) == sdp)
        }
    }
}
