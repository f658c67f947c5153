// SPDX-License-Identifier: Apache-2.0
import SRTP
import SessionDescription
import Testing
import Transport
@testable import voicecall

/// `--dtls`, and `receive`'s offer (`--offer-out`, `--answer-in`), as `RealCallOptions.parse`
/// takes and refuses them: what cannot work is a usage error (exit 2), never a trap.
@Suite struct DTLSOptionTests {
    static let key = "AES_CM_128_HMAC_SHA1_80 inline:" + RealCallSupport.base64(RealCallSupport.keyAndSalt(seed: 5))

    func parse(_ role: RealCallOptions.Role, _ words: [String]) -> Result<RealCallOptions, RealCallFailure> {
        var arguments = CommandArguments(words)
        do { return .success(try RealCallOptions.parse(role, &arguments)) } catch { return .failure(error) }
    }

    /// The usage message of a refusal, or nil when it was accepted (or refused otherwise).
    func usage(_ role: RealCallOptions.Role, _ words: [String]) -> String? {
        guard case .failure(.usage(let text)) = parse(role, words) else { return nil }
        return text
    }

    @Test func eachCommandTakesDTLSWithSDP() throws {
        let receive = try parse(.receive, ["--listen", "127.0.0.1:0", "--output", "o.wav", "--sdp", "offer.sdp", "--dtls"]).get()
        #expect(receive.dtls && !receive.offers)
        let send = try parse(.send, ["--input", "i.wav", "--sdp", "-", "--dtls"]).get()
        #expect(send.dtls)
        let offering = try parse(.call, ["--listen", "127.0.0.1:0", "--input", "i", "--output", "o", "--dtls"]).get()
        #expect(offering.dtls && offering.offers)
        let answering = try parse(.call, ["--listen", "127.0.0.1:0", "--input", "i", "--output", "o", "--sdp", "offer.sdp", "--dtls"]).get()
        #expect(answering.dtls && !answering.offers)
        // Without the flag, SDES as before.
        #expect(try !parse(.send, ["--input", "i.wav", "--sdp", "-"]).get().dtls)
    }

    @Test func receiveOffersWithOfferOut() throws {
        let options = try parse(.receive, ["--listen", "127.0.0.1:0", "--output", "o.wav", "--offer-out", "offer.sdp", "--answer-in", "answer.sdp"]).get()
        #expect(options.offers && options.offerOut == "offer.sdp" && options.answerIn == "answer.sdp")
        // The answer comes from standard input unless --answer-in names a file.
        #expect(try parse(.receive, ["--listen", "127.0.0.1:0", "--output", "o.wav", "--offer-out", "-"]).get().answerIn == "-")
        #expect(usage(.receive, ["--listen", "127.0.0.1:0", "--output", "o.wav", "--answer-in", "answer.sdp"])?
            .contains("give --offer-out FILE|- too") == true)
        #expect(usage(.receive, ["--listen", "127.0.0.1:0", "--output", "o.wav", "--offer-out", "o.sdp", "--sdp", "offer.sdp"])
            == "receive needs exactly one of --crypto 'SUITE inline:KEY', --sdp FILE (the sender's offer) and --offer-out FILE (ours)")
        // send does not offer: an unknown option there.
        #expect(usage(.send, ["--input", "i.wav", "--sdp", "-", "--offer-out", "o.sdp"]) == "unknown option --offer-out, 1 unexpected value (not shown)")
    }

    /// `--crypto` and `--to` carry no fingerprint to check the peer's certificate against.
    @Test func dtlsWithoutSDPIsAUsageError() {
        let receiveWithKey = usage(.receive, ["--listen", "127.0.0.1:0", "--output", "o.wav", "--crypto", Self.key, "--dtls"])
        #expect(receiveWithKey?.hasPrefix("receive --dtls needs --sdp FILE (the sender's offer) or --offer-out FILE (ours)") == true, "\(String(describing: receiveWithKey))")
        #expect(usage(.receive, ["--listen", "127.0.0.1:0", "--output", "o.wav", "--dtls"])?.hasPrefix("receive --dtls needs --sdp FILE") == true)
        let sendWithKey = usage(.send, ["--input", "i.wav", "--to", "127.0.0.1:5004", "--crypto", Self.key, "--dtls"])
        #expect(sendWithKey?.hasPrefix("send --dtls needs --sdp FILE, the receiver's offer") == true, "\(String(describing: sendWithKey))")
        #expect(usage(.send, ["--input", "i.wav", "--dtls"])?.hasPrefix("send --dtls needs --sdp FILE") == true)
        // The key itself never appears in a refusal.
        #expect(receiveWithKey?.contains(Self.key.suffix(12)) == false && sendWithKey?.contains(Self.key.suffix(12)) == false)
    }

    /// An offer that allows both (`a=crypto` and `a=fingerprint`) is answered by what `--dtls`
    /// says; each refuses an offer keyed only the other way.
    @Test func theAnswerIsKeyedAsDTLSSays() throws {
        let peer = try DTLSCertificate(), ours = try DTLSCertificate()
        func offer(_ keyExchange: KeyExchange) throws -> SessionDescription {
            var local = LocalAudio(address: "127.0.0.1", port: 40_000)
            local.keyExchange = keyExchange
            return try SessionDescription.offer(from: local, keys: local.suites.map { .random(profile: $0) })
        }
        let withDTLS = try parse(.send, ["--input", "i.wav", "--sdp", "-", "--dtls"]).get()
        let withoutDTLS = try parse(.send, ["--input", "i.wav", "--sdp", "-"]).get()
        let endpoint = UDPEndpoint(host: "0.0.0.0", port: 40_002)
        let dtlsLocal = RealCallSetup.localAudio(withDTLS, socket: endpoint, certificate: try RealCallDTLS.certificate(withDTLS))
        let sdesLocal = RealCallSetup.localAudio(withoutDTLS, socket: endpoint, certificate: try RealCallDTLS.certificate(withoutDTLS))
        #expect(sdesLocal.keyExchange == .sdes)
        let either = try offer(.dtlsOrSDES(fingerprint: peer.fingerprint))
        guard case .dtls = try either.answer(from: dtlsLocal) { .random(profile: $0) }.1.keying else {
            Issue.record("--dtls answered an offer of either without DTLS-SRTP"); return
        }
        guard case .sdes = try either.answer(from: sdesLocal) { .random(profile: $0) }.1.keying else {
            Issue.record("an answer without --dtls took DTLS-SRTP"); return
        }
        #expect(throws: SessionDescriptionError.self) { try offer(.sdes).answer(from: dtlsLocal) { .random(profile: $0) } }
        #expect(throws: SessionDescriptionError.self) { try offer(.dtls(fingerprint: ours.fingerprint)).answer(from: sdesLocal) { .random(profile: $0) } }
    }
}
