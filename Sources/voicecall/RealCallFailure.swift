// SPDX-License-Identifier: Apache-2.0
import Foundation

/// Why `voicecall receive`, `send` or `call` stopped, each with its own exit status so a
/// script (or a person) can tell them apart. None carries key material.
enum RealCallFailure: Error, Equatable, CustomStringConvertible {
    /// Bad flags, a missing option, a number out of range (exit 2).
    case usage(String)
    /// A `--crypto` line or an SDP body that cannot be used (exit 3); the text never quotes a key.
    case badDescription(String)
    /// The local address cannot be bound: in use, or not this host's (exit 4).
    case cannotListen(String)
    /// The audio device cannot be opened (exit 5).
    case device(String)
    /// The peer refused our packets (ICMP unreachable) for the give-up time, or sent nothing
    /// within it (exit 6).
    case unreachable(String)
    /// A WAV or SDP file cannot be read or written (exit 7).
    case file(String)
    /// The DTLS-SRTP handshake failed (exit 8): the peer's certificate does not match the
    /// fingerprint in its SDP (forged or mixed-up signalling), no SRTP profile in common, or an
    /// alert from the peer. A handshake that never completes is `.unreachable` instead.
    case handshake(String)
    /// ICE (`--ice`) gathered no candidate to offer or answer with (exit 9): with
    /// `--relay-only`, the TURN server refused our credentials or never answered.
    case noCandidates(String)
    /// Anything else that went wrong while the call ran (exit 1).
    case failed(String)

    /// The process's exit status.
    var exitStatus: Int32 {
        switch self {
        case .failed: return 1
        case .usage: return 2
        case .badDescription: return 3
        case .cannotListen: return 4
        case .device: return 5
        case .unreachable: return 6
        case .file: return 7
        case .handshake: return 8
        case .noCandidates: return 9
        }
    }

    /// What `--help` says about exit statuses (all three commands share them).
    static let exitStatusHelp = """
        exit status:
          0  the call ran and ended normally
          1  the call failed while running (e.g. a socket error)
          2  usage: an unknown flag, a missing option, a number out of range
          3  a --crypto line or SDP that cannot be used (malformed, no common suite, no opus)
          4  cannot listen: the port is in use or the address is not this host's
          5  the audio device (--device) cannot be opened
          6  the peer is unreachable (ICMP refused for --give-up seconds) or sent nothing (with
             --dtls: completed no handshake) within --give-up seconds
          7  a file (WAV, SDP) cannot be read or written
          8  the DTLS-SRTP handshake failed (--dtls): the peer's certificate does not match the
             fingerprint in its SDP, no SRTP profile in common, or an alert from the peer
          9  ICE (--ice) gathered no candidate: with --relay-only, the TURN server refused the
             credentials or did not answer (an ICE connection that fails is 6)
        """

    var description: String {
        switch self {
        case let .usage(text): return "usage: \(text)"
        case let .badDescription(text): return text
        case let .cannotListen(text): return "cannot listen: \(text)"
        case let .device(text): return "audio device: \(text)"
        case let .unreachable(text): return "peer unreachable: \(text)"
        case let .file(text): return "file: \(text)"
        case let .handshake(text): return "DTLS-SRTP handshake failed: \(text)"
        case let .noCandidates(text): return "ICE: no candidate: \(text)"
        case let .failed(text): return "failed: \(text)"
        }
    }

    /// A `CommandArguments` error as a usage failure.
    init(_ error: CommandError) {
        switch error {
        case .usage(let text): self = .usage(text)
        case .invalidValue: self = .usage(String("\(error)".dropFirst("usage: ".count)))
        case .failed(let text): self = .failed(text)
        }
    }

    /// Prints `voicecall COMMAND: failure` on standard error and exits with its status.
    static func exit(command: String, _ failure: RealCallFailure) -> Never {
        FileHandle.standardError.write(Data("voicecall \(command): \(failure)\n".utf8))
        Foundation.exit(failure.exitStatus)
    }
}
