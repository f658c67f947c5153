// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaBasics

/// `voicecall`: makes calls with the VoiceEngine media stack.
@main
struct VoiceCall {
    static let usage = """
        usage: voicecall <command> [options]
        commands:
          demo      two softphones call each other through push, ring, answer, talk and hang up,
                    SRTP/Opus over UDP through a simulated network (see: voicecall demo --help)
          receive   receives SRTP/Opus from any sender into a WAV file (--crypto, or SDP it answers
                    or offers; keyed by SDES, or by DTLS-SRTP with --dtls)
          send      sends a WAV file as SRTP/Opus to any receiver (--crypto, or SDP it answers; --dtls)
          call      a call both ways, SDP offer/answer through files or standard input/output (--dtls)
          devices   lists ALSA devices and sound cards
          loopback  plays a chirp or WAV and captures it back: round-trip latency and xruns
          aec       removes the echo of a far-end recording from a microphone recording
          latency   mouth-to-ear latency and time to first audio of a call on real threads
          relay     a seeded impairment relay between two UDP endpoints (a bad network without root)
          help      this text
          --version the version of VoiceEngine it is built from
        """

    static func main() {
        // Before anything opens a descriptor: a closed standard stream must not become a socket.
        _ = StandardStreams.closedAtStart
        var arguments = CommandArguments(CommandLine.arguments.dropFirst())
        let command = arguments.popFirst() ?? "help"
        do {
            switch command {
            case "demo":
                if arguments.flag("--help") { print(DemoCommand.usage); return }
                try DemoCommand.run(&arguments)
            case "devices":
                if arguments.flag("--help") { print(DevicesCommand.usage); return }
                try DevicesCommand.run(&arguments)
            case "loopback":
                if arguments.flag("--help") { print(LoopbackCommand.usage); return }
                try LoopbackCommand.run(&arguments)
            case "latency":
                if arguments.flag("--help") { print(LatencyCommand.usage); return }
                try LatencyCommand.run(&arguments)
            case "relay":
                if arguments.flag("--help") { print(RelayCommand.usage); return }
                try RelayCommand.run(&arguments)
            case "aec":
                if arguments.flag("--help") { print(EchoCancelCommand.usage); return }
                try EchoCancelCommand.run(&arguments)
            case "receive":
                if arguments.flag("--help") { print(ReceiveCommand.usage); return }
                ReceiveCommand.run(&arguments)
            case "send":
                if arguments.flag("--help") { print(SendCommand.usage); return }
                SendCommand.run(&arguments)
            case "call":
                if arguments.flag("--help") { print(CallCommand.usage); return }
                CallCommand.run(&arguments)
            case "help", "--help", "-h":
                print(usage)
            case "--version", "version":
                print("voicecall (VoiceEngine) \(VoiceEngineVersion.string)")
            default:
                throw CommandError.usage("unknown command \(command)\n\(usage)")
            }
        } catch {
            FileHandle.standardError.write(Data("voicecall \(command): \(error)\n".utf8))
            exit(1)
        }
    }
}
