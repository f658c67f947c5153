// SPDX-License-Identifier: Apache-2.0
import Transport

/// What `--ice`, `--stun`, `--turn`, `--turn-user`, `--turn-password-file` and `--relay-only`
/// asked for, as parsed from argv: servers still as typed (a name is resolved when the call
/// is set up, `RealCallICE`), the TURN password still in its file (read then, never from
/// argv, where `ps` would show it to every user).
struct RealCallICEOptions: Equatable {
    /// A server as `HOST:PORT` or `[IPV6]:PORT`, the host a name or an IP literal, the port 1…65535.
    struct ServerText: Equatable {
        var host: String
        var port: UInt16
    }

    /// The options in a usage line.
    static let synopsis = "[--ice [--stun HOST:PORT] [--turn HOST:PORT --turn-user NAME --turn-password-file FILE [--relay-only]]]"

    /// What `--help` says about the servers and `--relay-only` (`call`, `send` and `receive`
    /// take them alike), as lines of a usage text.
    static let help = """
          --stun         a STUN server for a server-reflexive candidate (a name is resolved once)
          --turn         a TURN server (UDP) for a relayed candidate, with --turn-user NAME and
                         --turn-password-file FILE (the password from a file, never argv; at most
                         512 bytes, one trailing newline dropped)
          --relay-only   only relayed candidates; a TURN server that refuses the credentials (or
                         does not answer) leaves none: exit 9, before any SDP is written
        """

    /// `--stun HOST:PORT`.
    var stun: ServerText?
    /// `--turn HOST:PORT` (TURN over UDP, RFC 8656).
    var turn: ServerText?
    /// `--turn-user NAME`.
    var turnUser: String?
    /// `--turn-password-file FILE`.
    var turnPasswordFile: String?
    /// `--relay-only`: only relayed candidates (needs `--turn`).
    var relayOnly = false

    /// Takes the ICE options out of `arguments`; nil when `--ice` is absent (then none of the
    /// others may be given).
    /// - Throws: `.usage` for a server that is not HOST:PORT, port 0 or out of range, a TURN
    ///   server without its user or password file (or those without a server), `--relay-only`
    ///   without `--turn`, or any of them without `--ice`.
    static func parse(_ arguments: inout CommandArguments) throws(RealCallFailure) -> RealCallICEOptions? {
        var options = RealCallICEOptions()
        let ice: Bool
        let stun: String?, turn: String?
        do throws(CommandError) {
            ice = arguments.flag("--ice")
            stun = try arguments.value("--stun")
            turn = try arguments.value("--turn")
            options.turnUser = try arguments.value("--turn-user")
            options.turnPasswordFile = try arguments.value("--turn-password-file")
            options.relayOnly = arguments.flag("--relay-only")
        } catch {
            throw RealCallFailure(error)
        }
        options.stun = try stun.map { text throws(RealCallFailure) in try server(text, option: "--stun") }
        options.turn = try turn.map { text throws(RealCallFailure) in try server(text, option: "--turn") }
        guard ice else {
            if options != RealCallICEOptions() {
                throw .usage("--stun, --turn, --turn-user, --turn-password-file and --relay-only configure ICE: give --ice too")
            }
            return nil
        }
        if options.turn != nil && (options.turnUser == nil || options.turnPasswordFile == nil) {
            throw .usage("--turn needs --turn-user NAME and --turn-password-file FILE (TURN over UDP takes long-term credentials)")
        }
        if options.turn == nil && (options.turnUser != nil || options.turnPasswordFile != nil) {
            throw .usage("--turn-user and --turn-password-file are for a TURN server: give --turn HOST:PORT too")
        }
        if let user = options.turnUser, user.isEmpty || user.utf8.count > 512 {
            throw .usage("--turn-user must be 1…512 bytes")
        }
        if options.relayOnly && options.turn == nil {
            throw .usage("--relay-only needs --turn HOST:PORT: relayed candidates come from a TURN server")
        }
        return options
    }

    /// `HOST:PORT` or `[IPV6]:PORT`, the port 1…65535 (checked as text before it becomes a number).
    static func server(_ text: String, option: String) throws(RealCallFailure) -> ServerText {
        let (host, portText) = try RealCallOptions.hostAndPort(text, option: option)
        guard !host.isEmpty, host.utf8.count <= 253 else { throw .usage("\(option) needs a host name or IP address, got \(text.debugDescription)") }
        guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let port = UInt16(portText), port > 0 else {
            throw .usage("\(option) needs a port 1…65535, got \(String(portText).debugDescription)")
        }
        return ServerText(host: String(host), port: port)
    }
}
