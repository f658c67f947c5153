// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import SessionDescription
import Transport

/// The options of `voicecall receive`, `send` and `call`, parsed and checked before anything
/// opens a socket or a file: a testable value (`parse`), so every refusal has a test without
/// a network.
struct RealCallOptions: Equatable {
    /// Which command the options are for: each takes its own set.
    enum Role: String { case receive, send, call }

    var role: Role
    /// Where we receive (`--listen HOST:PORT`).
    var listen: UDPEndpoint?
    /// Where we send (`--to HOST:PORT`), when not from an SDP.
    var to: UDPEndpoint?
    /// `--crypto 'SUITE inline:KEY'`: the peer's key for receive, ours for send.
    var crypto: SDESCryptoAttribute?
    /// `--codec NAME`: the only codec to send and accept (without SDP: Opus unless named;
    /// with SDP: every codec we have unless named).
    var codec: AudioCodec?
    /// `--payload-type N` for Opus (96…127; SDP sets it otherwise; G.711 and G.722 use their
    /// static payload types).
    var payloadType: UInt8 = 111
    /// `--bitrate BPS` for what we send.
    var bitrate = MediaConfiguration.defaultBitrate
    /// `--ssrc N`: the source we send as (random by default); receivers such as GStreamer's
    /// srtpdec need it in advance.
    var ssrc: UInt32?
    /// `--ptime MS`: our packet time.
    var ptime = 20
    /// `--input IN.wav`: what we send.
    var input: String?
    /// `--output OUT.wav`: what we receive.
    var output: String?
    /// `--seconds N`: the longest the call (receive: its recording) lasts.
    var seconds: Double?
    /// `--sdp FILE|-`: the peer's offer, which we answer.
    var sdp: String?
    /// `--answer-out FILE|-`: where our answer goes (standard output by default).
    var answerOut = "-"
    /// `--offer-out FILE|-` (call and receive, offering): where our offer goes.
    var offerOut = "-"
    /// `--answer-in FILE|-` (call and receive, offering): where the peer's answer comes from.
    var answerIn = "-"
    /// Whether we offer and read the answer (`call` without `--sdp`, `receive` with
    /// `--offer-out`) rather than answer `--sdp`'s offer or take `--crypto`.
    var offers = false
    /// `--dtls`: key SRTP by a DTLS-SRTP handshake (RFC 5763/5764) checked against the peer's
    /// SDP fingerprint, with a certificate made for the run; needs SDP, and refuses an offer
    /// keyed by SDES alone. Without it SDES alone, as before the option existed.
    var dtls = false
    /// `--device NAME`: an ALSA PCM for a live call (call only).
    var device: String?
    /// `--ice` and its servers: the call carried by an ICE agent (RFC 8445) whose candidates
    /// go into our SDP, instead of the `--listen` socket; needs SDP (`send --sdp`, `receive
    /// --sdp` or `--offer-out`, `call`); nil without `--ice`.
    var ice: RealCallICEOptions?
    /// `--give-up SECONDS`: how long refusals (or, when we expect media, silence) last
    /// before the peer counts as unreachable.
    var giveUpSeconds = 10.0
    /// `--learnt-delays FILE` (receive, call): what the last call on the path learnt, read at
    /// the start and written at the end (`LearntDelaysFile`).
    var learntDelays: String?

    /// Parses `arguments` for `role`, consuming all of them.
    ///
    /// - Throws: `.usage` for an unknown flag, a missing or conflicting option or a number out
    ///   of range; `.badDescription` for a `--crypto` line that does not parse (never quoting
    ///   it). Leftover arguments are named only when they look like flags: a stray value may be
    ///   a key.
    static func parse(_ role: Role, _ arguments: inout CommandArguments) throws(RealCallFailure) -> RealCallOptions {
        var options = RealCallOptions(role: role)
        do {
            options.listen = try arguments.value("--listen").map { text throws(RealCallFailure) in try endpoint(text, option: "--listen") }
            if role == .send {
                options.to = try arguments.value("--to").map { text throws(RealCallFailure) in try endpoint(text, option: "--to") }
            }
            if role != .call, let text = try arguments.value("--crypto") { options.crypto = try cryptoAttribute(text) }
            if let name = try arguments.value("--codec") {
                guard let codec = AudioCodec.allCases.first(where: { $0.rawValue == name.lowercased() }) else {
                    throw RealCallFailure.usage("--codec \(name) is not one of \(AudioCodec.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                options.codec = codec
            }
            if let number = try arguments.integer("--payload-type", in: 96...127) {
                guard (options.codec ?? .opus) == .opus else {
                    throw RealCallFailure.usage("--payload-type is Opus's: \(options.codec!) uses its static payload type")
                }
                options.payloadType = UInt8(number)
            }
            if role != .receive {
                options.bitrate = try arguments.integer("--bitrate", in: 6_000...510_000) ?? options.bitrate
                options.ptime = try arguments.integer("--ptime", oneOf: [10, 20, 40, 60]) ?? options.ptime
                options.input = try arguments.value("--input")
                options.ssrc = try arguments.integer("--ssrc", in: 0...Int(UInt32.max)).map(UInt32.init)
            }
            if role != .send {
                options.output = try arguments.value("--output")
                options.seconds = try arguments.seconds("--seconds", upTo: 36_000)
                options.learntDelays = try arguments.value("--learnt-delays")
            }
            options.sdp = try arguments.value("--sdp")
            options.answerOut = try arguments.value("--answer-out") ?? options.answerOut
            if role != .send {
                let offerOut = try arguments.value("--offer-out")
                let answerIn = try arguments.value("--answer-in")
                options.offerOut = offerOut ?? options.offerOut
                options.answerIn = answerIn ?? options.answerIn
                // `call` offers unless it answers; `receive` only when asked to.
                options.offers = role == .call ? options.sdp == nil : offerOut != nil
                if role == .receive, answerIn != nil, offerOut == nil {
                    throw RealCallFailure.usage("--answer-in is where the answer to our offer comes from: give --offer-out FILE|- too")
                }
            }
            if role == .call { options.device = try arguments.value("--device") }
            options.dtls = arguments.flag("--dtls")
            options.ice = try RealCallICEOptions.parse(&arguments)
            options.giveUpSeconds = try arguments.seconds("--give-up", upTo: 3_600) ?? options.giveUpSeconds
        } catch let error as RealCallFailure {
            throw error
        } catch let error as CommandError {
            throw RealCallFailure(error)
        } catch {
            throw .failed("\(error)")
        }
        try rejectLeftovers(&arguments)
        try options.checkCombination()
        return options
    }

    /// The options each role needs, and those that exclude each other.
    private func checkCombination() throws(RealCallFailure) {
        switch role {
        case .receive:
            guard listen != nil else { throw .usage("receive needs --listen HOST:PORT") }
            if dtls && crypto != nil || dtls && sdp == nil && !offers {
                throw .usage("receive --dtls needs --sdp FILE (the sender's offer) or --offer-out FILE (ours): the handshake checks the "
                    + "sender's certificate against the fingerprint in its SDP, and --crypto carries none")
            }
            if ice != nil && crypto != nil {
                throw .usage("receive --ice needs --sdp FILE (the sender's offer) or --offer-out FILE (ours): ICE's credentials "
                    + "and candidates travel in the SDP, and --crypto carries none")
            }
            guard [crypto != nil, sdp != nil, offers].filter({ $0 }).count == 1 else {
                throw .usage("receive needs exactly one of --crypto 'SUITE inline:KEY', --sdp FILE (the sender's offer) and --offer-out FILE (ours)")
            }
            guard output != nil else { throw .usage("receive needs --output OUT.wav") }
        case .send:
            guard input != nil else { throw .usage("send needs --input IN.wav") }
            if dtls && sdp == nil {
                throw .usage("send --dtls needs --sdp FILE, the receiver's offer: the handshake checks the receiver's certificate "
                    + "against the fingerprint in it, and --to/--crypto carry none")
            }
            if ice != nil && sdp == nil {
                throw .usage("send --ice needs --sdp FILE, the receiver's offer: ICE's credentials and candidates travel in the "
                    + "SDP, and --to/--crypto carry none (the receiver offers with receive --ice --offer-out)")
            }
            if sdp == nil {
                guard to != nil, crypto != nil else { throw .usage("send needs --to HOST:PORT and --crypto 'SUITE inline:KEY', or --sdp FILE") }
            } else if to != nil || crypto != nil {
                throw .usage("send takes --sdp FILE or --to and --crypto, not both")
            }
        case .call:
            guard listen != nil else { throw .usage("call needs --listen HOST:PORT") }
            if device == nil {
                guard input != nil, output != nil else { throw .usage("call needs --device NAME, or --input IN.wav and --output OUT.wav") }
            } else if input != nil || output != nil {
                throw .usage("call takes --device NAME or --input/--output files, not both")
            }
            if sdp != nil && sdp == answerOut && sdp != "-" { throw .usage("--sdp and --answer-out name the same file") }
        }
        // libnice binds the candidates' ports itself: a port asked for would be silently another.
        if ice != nil, let listen, listen.port != 0 {
            throw .usage("with --ice, --listen names only the address of our host candidates (libnice chooses the ports): give --listen \(listen.host.contains(":") ? "[\(listen.host)]" : listen.host):0")
        }
    }

    /// Fails on arguments no option took. Names flags (`--crypt`), never values: a value
    /// left over is likely a mistyped option's, and that may be a key.
    private static func rejectLeftovers(_ arguments: inout CommandArguments) throws(RealCallFailure) {
        var flags: [String] = []
        var values = 0
        while let argument = arguments.popFirst() {
            let looksLikeFlag = argument.hasPrefix("-") && argument.count <= 32
                && argument.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            if looksLikeFlag { flags.append(argument) } else { values += 1 }
        }
        guard flags.isEmpty && values == 0 else {
            var parts: [String] = []
            if !flags.isEmpty { parts.append("unknown option\(flags.count > 1 ? "s" : "") \(flags.joined(separator: " "))") }
            if values > 0 { parts.append("\(values) unexpected value\(values > 1 ? "s" : "") (not shown)") }
            throw .usage(parts.joined(separator: ", "))
        }
    }

    /// `HOST:PORT` or `[IPV6]:PORT` split into its host and port text (neither checked further).
    static func hostAndPort(_ text: String, option: String) throws(RealCallFailure) -> (host: Substring, port: Substring) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .usage("\(option) needs HOST:PORT or [IPV6]:PORT, got \(text.debugDescription)") }
            return (text[text.index(after: text.startIndex)..<close], rest.dropFirst())
        }
        guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
            throw .usage("\(option) needs HOST:PORT or [IPV6]:PORT, got \(text.debugDescription)")
        }
        return (text[..<colon], text[text.index(after: colon)...])
    }

    /// `HOST:PORT` or `[IPV6]:PORT`, the host numeric.
    static func endpoint(_ text: String, option: String) throws(RealCallFailure) -> UDPEndpoint {
        let (host, portText) = try hostAndPort(text, option: option)
        guard let port = UInt16(portText) else {
            throw .usage("\(option) needs a port 0…65535, got \(String(portText).debugDescription)")
        }
        let endpoint = UDPEndpoint(host: String(host), port: port)
        do {
            _ = try PeerAddress(endpoint)
        } catch {
            throw .usage("\(option) needs a numeric IPv4 or [IPv6] address, got \(String(host).debugDescription)")
        }
        return endpoint
    }

    /// `SUITE inline:KEY[|…]` (the tag of an SDP line may be left out: 1 is assumed), or a
    /// whole `a=crypto:` line. Errors name the field, never the key.
    static func cryptoAttribute(_ text: String) throws(RealCallFailure) -> SDESCryptoAttribute {
        var line = Substring(text).drop(while: \.isWhitespace)
        if line.hasPrefix("a=crypto:") { line = line.dropFirst("a=crypto:".count) }
        let startsWithTag = line.first?.isNumber == true
        let attribute: SDESCryptoAttribute
        do {
            attribute = try SDESCryptoAttribute(parsing: startsWithTag ? String(line) : "1 " + line)
        } catch {
            throw .badDescription("--crypto: \(error) (expected 'SUITE inline:KEY', e.g. 'AES_CM_128_HMAC_SHA1_80 inline:<40 base64 characters>')")
        }
        // As in SDP (`SessionDescriptionError.unprotectedCrypto`): never media without SRTP's protection.
        if let parameter = attribute.unprotectingParameter {
            throw .badDescription("--crypto: \(parameter) asks for unprotected media, which we refuse")
        }
        return attribute
    }
}
