// SPDX-License-Identifier: Apache-2.0
/// How an ICE agent (RFC 8445) gathers candidates and checks connectivity.
public struct ICEConfiguration: Sendable, Equatable {
    /// Which side nominates the pair: the offerer of a call is controlling (RFC 8445 §6.1.1)
    /// unless the peer is ICE-lite.
    public enum Role: String, Sendable, Hashable {
        /// Nominates the pair media flows on.
        case controlling
        /// Accepts the controlling side's nomination.
        case controlled
    }

    /// How the controlling side nominates (RFC 8445 §8.1.1; aggressive is RFC 5245's).
    public enum Nomination: String, Sendable, Hashable {
        /// The first pair that works, at once: fastest to media.
        case aggressive
        /// After the checks settle, the best pair that works.
        case regular
    }

    /// A TURN server over UDP (RFC 8656) with its long-term credentials.
    public struct TURNServer: Sendable, Hashable, CustomStringConvertible {
        /// Where it listens: an IP address literal (libnice takes no names: resolve them first)
        /// and a UDP port.
        public var server: UDPEndpoint
        /// The long-term credential's username.
        public var username: String
        /// The long-term credential's password (never printed).
        public var password: String
        public init(server: UDPEndpoint, username: String, password: String) {
            self.server = server
            self.username = username
            self.password = password
        }
        public var description: String { "TURN \(server) as \(username)" }
    }

    /// Our role.
    public var role: Role
    /// Where to learn our server-reflexive address (STUN binding), if anywhere: an IP address
    /// literal (no names) and a UDP port.
    public var stunServer: UDPEndpoint?
    /// Where to allocate relayed candidates.
    public var turnServers: [TURNServer] = []
    /// Only relayed candidates: every packet through a TURN server (hides our addresses; the
    /// way to test TURN alone). Needs at least one TURN server.
    public var relayOnly = false
    /// The local addresses host candidates may use (IP literals); empty for every interface.
    public var localAddresses: [String] = []
    /// Trickle ICE (RFC 8838): candidates reach the peer as they are found; without it the
    /// offer waits for gathering to finish.
    public var trickle = false
    /// RFC 7675 consent freshness: the selected pair is checked every ~5 s, and a peer that
    /// stops answering for 30 s fails the connection.
    public var consentFreshness = true
    /// How the controlling side nominates.
    public var nomination: Nomination = .aggressive

    /// A configuration for `role`; everything else at its default (host candidates on every
    /// interface, no servers, consent freshness on, aggressive nomination).
    public init(role: Role) {
        self.role = role
    }

    /// Refuses what the agent cannot work with.
    func validate() throws(ICEError) {
        if relayOnly && turnServers.isEmpty { throw .badParameter("relay-only needs a TURN server") }
        for server in [stunServer].compactMap({ $0 }) + turnServers.map(\.server) {
            guard Self.isAddressLiteral(server.host) else {
                throw .badParameter("\(server.host) is not an IP address literal (resolve names first)")
            }
            guard server.port > 0 else { throw .badParameter("port 0 for \(server.host)") }
        }
        for turn in turnServers {
            guard !turn.username.isEmpty, turn.username.utf8.count <= 512, turn.password.utf8.count <= 512,
                  !turn.username.utf8.contains(0), !turn.password.utf8.contains(0)
            else { throw .badParameter("a TURN username must be 1…512 bytes and a password at most 512, without NUL") }
        }
        for address in localAddresses where !Self.isAddressLiteral(address) {
            throw .badParameter("\(address) is not an IP address literal")
        }
    }

    /// Whether `address` is an IPv4 or IPv6 literal (what `PeerAddress` parses).
    static func isAddressLiteral(_ address: String) -> Bool {
        (try? PeerAddress(UDPEndpoint(host: address, port: 1))) != nil
    }
}
