// SPDX-License-Identifier: Apache-2.0
import CallNegotiation
import Foundation
import SessionDescription
import Transport

/// How `call`, `send` and `receive` with `--ice` set up their ICE agent (RFC 8445) around the
/// offer/answer, non-trickle: the agent made from the options (the offerer controlling, the
/// answerer controlled), its candidates all gathered before our SDP is written (with
/// `a=end-of-candidates`), the peer's credentials and candidates taken from its SDP, and what
/// failed, in words and exit statuses.
enum RealCallICE {
    /// The agent `options.ice` asks for; `controlling` when we offer (RFC 8445 §6.1.1).
    /// Host candidates only on `--listen`'s address when it names one (a wildcard: every
    /// interface). Names in `--stun`/`--turn` are resolved here (libnice takes IP literals).
    /// - Throws: `.usage` for a name that does not resolve, `.file`/`.usage` for the TURN
    ///   password file (`TURNPasswordFile`), `.failed` when libnice cannot make the agent.
    static func agent(_ options: RealCallOptions, controlling: Bool) throws(RealCallFailure) -> ICEAgent {
        guard let ice = options.ice else { throw .failed("RealCallICE.agent without --ice") }
        var configuration = ICEConfiguration(role: controlling ? .controlling : .controlled)
        configuration.stunServer = try ice.stun.map { text throws(RealCallFailure) in try resolve(text, option: "--stun") }
        if let turn = ice.turn, let user = ice.turnUser, let file = ice.turnPasswordFile {
            let password: String
            do {
                password = try TURNPasswordFile.read(file)
            } catch {
                if case .unreadable = error { throw .file("\(error)") }
                throw .usage("\(error)")
            }
            configuration.turnServers = [.init(server: try resolve(turn, option: "--turn"), username: user, password: password)]
        }
        configuration.relayOnly = ice.relayOnly
        if let listen = options.listen, listen.host != "0.0.0.0", listen.host != "::" {
            configuration.localAddresses = [listen.host]
        }
        do {
            return try ICEAgent(configuration: configuration)
        } catch {
            if case .badParameter = error { throw .usage("\(error)") }
            throw .failed("\(error)")
        }
    }

    /// `server`'s host as an IP literal: a literal as it is, a name by the system's resolver
    /// (its first address).
    /// - Throws: `.usage` naming the option when the name does not resolve.
    static func resolve(_ server: RealCallICEOptions.ServerText, option: String) throws(RealCallFailure) -> UDPEndpoint {
        if (try? PeerAddress(UDPEndpoint(host: server.host, port: server.port))) != nil {
            return UDPEndpoint(host: server.host, port: server.port)
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(server.host, nil, &hints, &results)
        defer { if let results { freeaddrinfo(results) } }
        guard status == 0, let first = results, let address = first.pointee.ai_addr else {
            throw .usage("\(option) \(server.host): the name does not resolve (\(String(cString: gai_strerror(status)))); give an IP address")
        }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, first.pointee.ai_addrlen, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else {
            throw .usage("\(option) \(server.host): the name resolved to an address that cannot be written; give an IP address")
        }
        let literal = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return UDPEndpoint(host: literal, port: server.port)
    }

    /// Gathers every candidate (waiting up to `seconds` for the end) and returns them as our
    /// SDP's ICE side, with end-of-candidates (non-trickle), and the default candidate (for
    /// `c=`/`m=`: relayed, else server-reflexive, else host, RFC 8839 §4.2.1.2).
    /// - Throws: `.noCandidates` when none came (relay-only: the TURN server refused our
    ///   credentials or did not answer), `.failed` when libnice will not gather.
    static func gather(_ agent: ICEAgent, options: RealCallICEOptions, seconds: Double,
                       say: (String) -> Void) throws(RealCallFailure) -> (ice: LocalICE, defaultCandidate: ICECandidate) {
        do {
            try agent.gatherCandidates()
        } catch {
            throw .failed("\(error)")
        }
        let deadline = Date().addingTimeInterval(seconds)
        var candidates: [ICECandidate] = []
        var done = false
        while !done && Date() < deadline {
            for event in agent.takeEvents() {
                switch event {
                case let .localCandidate(line):
                    // libnice writes what RFC 8839 reads; one that did not parse would only be
                    // refused by the peer, so it stays out of our SDP.
                    if let candidate = try? ICECandidate(parsing: line), candidates.count < ICEAttributes.maximumCandidateCount {
                        candidates.append(candidate)
                    }
                case .gatheringDone:
                    done = true
                default:
                    break
                }
            }
            if !done { usleep(10_000) }
        }
        let relayed = candidates.filter { $0.type == .relayed }
        if let turn = options.turn, relayed.isEmpty {
            let why = "the TURN server \(turn.host):\(turn.port) gave no relayed candidate: it refused the credentials of "
                + "\(options.turnUser ?? "")".debugDescription + " or did not answer" + (done ? "" : " within \(Int(seconds)) s")
            if options.relayOnly || candidates.isEmpty { throw .noCandidates(why + " (--relay-only: nothing else to offer)") }
            say("ICE: " + why + "; going on with \(candidates.count) other candidates")
        }
        guard !candidates.isEmpty else {
            throw .noCandidates(done ? "gathering found no address to offer (is --listen an address of this host?)"
                                     : "gathering found nothing within \(Int(seconds)) s")
        }
        if !done { say("ICE: gathering did not finish within \(Int(seconds)) s; offering the \(candidates.count) candidates found") }
        let preference: [ICECandidate.CandidateType] = [.relayed, .serverReflexive, .peerReflexive, .host]
        let defaultCandidate = preference.lazy.compactMap { type in candidates.first { $0.type == type } }.first ?? candidates[0]
        do {
            let credentials = agent.localCredentials
            let ice = try LocalICE(usernameFragment: credentials.usernameFragment, password: credentials.password,
                                   candidates: candidates, trickle: false, endOfCandidates: true)
            return (ice, defaultCandidate)
        } catch {
            throw .failed("libnice's credentials: \(error)")
        }
    }

    /// Our side of the offer/answer over `agent`: every candidate gathered (within
    /// `--give-up`), the default one in `c=`/`m=`, our credentials and `a=end-of-candidates`
    /// with them; the count and our role (controlling when we offer) said as `command`'s.
    /// - Throws: what `gather` throws.
    static func localAudio(_ agent: ICEAgent, options: RealCallOptions, certificate: DTLSCertificate?,
                           command: String) throws(RealCallFailure) -> LocalAudio {
        guard let ice = options.ice else { throw .failed("RealCallICE.localAudio without --ice") }
        let gathered = try gather(agent, options: ice, seconds: options.giveUpSeconds) { RealCallSetup.say(command, $0) }
        let endpoint = UDPEndpoint(host: gathered.defaultCandidate.address, port: gathered.defaultCandidate.port)
        var local = RealCallSetup.localAudio(options, socket: endpoint, certificate: certificate)
        local.ice = gathered.ice
        RealCallSetup.say(command, "ICE: \(gathered.ice.candidates.count) candidates gathered, "
            + (options.offers ? "controlling (we offer)" : "controlled (we answer)"))
        return local
    }

    /// Refuses, before we gather or answer, an offer made without ICE.
    static func check(_ offer: SessionDescription) throws(RealCallFailure) {
        let ice = offer.audioICE
        guard ice.usernameFragment != nil, ice.password != nil else { throw noICE }
    }

    private static let noICE = RealCallFailure.badDescription(
        "--ice: the peer's SDP carries no a=ice-ufrag/a=ice-pwd (it was made without ICE); leave out --ice, or run the peer with --ice too")

    /// Gives `agent` the peer's credentials and candidates from its SDP. A non-trickle peer's
    /// SDP holds them all (RFC 8839), as does one with `a=end-of-candidates`: the agent is told
    /// they are complete, so that checks which fail can fail the connection.
    /// - Throws: `.badDescription` when the peer's SDP has no ICE (it was made without), bad
    ///   credentials, no usable candidate, or one that does not parse.
    static func connect(_ agent: ICEAgent, to negotiated: NegotiatedAudio) throws(RealCallFailure) {
        let added: Int
        do {
            added = try negotiated.connectICE(agent)
        } catch .noRemoteICE {
            throw noICE
        } catch {
            throw .badDescription("\(error)")
        }
        guard added > 0 else { throw .badDescription("--ice: the peer's SDP carries no candidate for RTP (component 1)") }
    }

    /// The failure of a connection whose checks all failed, or whose peer stopped consenting.
    static func failed(connected: Bool) -> RealCallFailure {
        connected
            ? .unreachable("ICE: the peer stopped answering consent checks (RFC 7675) and the connection failed")
            : .unreachable("ICE: no candidate pair worked: every connectivity check failed (is the peer running with --ice, "
                + "and can its candidates be reached? behind NAT add --stun, or --turn)")
    }

    /// The failure of a connection that did not come up within `seconds`.
    static func timedOut(_ seconds: Double) -> RealCallFailure {
        .unreachable("ICE: no candidate pair connected within \(seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)") s (--give-up)")
    }
}
