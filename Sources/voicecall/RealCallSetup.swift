// SPDX-License-Identifier: Apache-2.0
import CallNegotiation
import Foundation
import MediaEngine
import Opus
import SRTP
import SessionDescription
import Synchronization
import Transport

/// What `receive`, `send` and `call` share: the socket, the call's configuration from the
/// options or the SDP, the keys, Ctrl-C, and the report at the end.
enum RealCallSetup {
    /// Set by SIGINT/SIGTERM: the call ends as if its time were up (the recording is written).
    static let interrupted = Atomic<Bool>(false)

    /// Ends calls on Ctrl-C cleanly instead of killing the process.
    static func handleInterrupts() {
        let handler: @convention(c) (Int32) -> Void = { _ in RealCallSetup.interrupted.store(true, ordering: .relaxed) }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    /// A socket bound to `endpoint`, reporting ICMP refusals.
    static func openSocket(_ endpoint: UDPEndpoint) throws(RealCallFailure) -> UDPSocket {
        let socket: UDPSocket
        do {
            socket = try UDPSocket(bindingTo: endpoint)
        } catch {
            switch error.code.rawValue {
            case EADDRINUSE:
                throw .cannotListen("\(endpoint) is in use by another program; choose another port, or stop the other program (ss -ulpn shows it)")
            case EADDRNOTAVAIL:
                throw .cannotListen("\(endpoint.host) is not an address of this host; use one it has (ip -brief address), 0.0.0.0 or [::]")
            case EACCES, EPERM:
                throw .cannotListen("\(endpoint): not permitted (ports below 1024 need privileges)")
            default:
                throw .cannotListen("\(endpoint): \(error)")
            }
        }
        do {
            try socket.reportICMPErrors()
        } catch {
            throw .failed("\(error)")
        }
        return socket
    }

    /// The wildcard address of `endpoint`'s family, port 0: where a sender binds by default.
    static func anyLocal(like endpoint: UDPEndpoint) -> UDPEndpoint {
        UDPEndpoint(host: endpoint.host.contains(":") ? "::" : "0.0.0.0", port: 0)
    }

    /// Our side of an offer/answer: receiving at the socket's endpoint, with the codec
    /// `--codec` names alone, or every codec we have; keyed by DTLS-SRTP with `certificate`
    /// (`--dtls`), else by SDES (`RealCallDTLS.keyExchange`).
    static func localAudio(_ options: RealCallOptions, socket endpoint: UDPEndpoint, certificate: DTLSCertificate? = nil) -> LocalAudio {
        var local = LocalAudio(address: advertisedAddress(endpoint), port: endpoint.port)
        if let codec = options.codec { local.codecs = [codec] }
        local.keyExchange = RealCallDTLS.keyExchange(certificate: certificate)
        return local
    }

    /// The address to write into our SDP for a socket bound to `endpoint`: a wildcard is not
    /// an address a peer can send to, so loopback stands in (say `--listen` with the real one).
    static func advertisedAddress(_ endpoint: UDPEndpoint) -> String {
        switch endpoint.host {
        case "0.0.0.0": return "127.0.0.1"
        case "::": return "::1"
        default: return endpoint.host
        }
    }

    /// The configuration for the options alone (no SDP), protected with `profile`; nil leaves
    /// the suite to a DTLS-SRTP handshake (the call's keys bring it).
    static func configuration(_ options: RealCallOptions, profile: SRTPProfile?) throws(RealCallFailure) -> MediaConfiguration {
        var configuration = MediaConfiguration()
        let codec = options.codec ?? .opus
        configuration.codec = codec
        configuration.payloadType = codec.staticPayloadType ?? options.payloadType
        configuration.telephoneEventClockRate = codec.rtpClockRate
        configuration.bitrate = options.bitrate
        configuration.minimumBitrate = min(configuration.minimumBitrate, options.bitrate)
        configuration.frameDurationMs = options.ptime
        if let profile { configuration.srtpProfile = profile }
        configuration.jitterBuffer.learntDelays = try options.learntDelays.flatMap { path throws(RealCallFailure) in try LearntDelaysFile.read(path) }
        do {
            try configuration.validate()
        } catch {
            throw .usage("\(error)")
        }
        return configuration
    }

    /// The call's media for what an offer/answer settled, in the library's one step
    /// (`NegotiatedAudio.makeCallMedia`): the options' choices with the negotiated payload
    /// types, suite, keys and direction, what we send fitted to the peer's fmtp and ptime.
    static func media(_ options: RealCallOptions, negotiated: NegotiatedAudio, ssrc: UInt32? = nil) throws(RealCallFailure) -> CallMedia {
        // SDES settles the suite in the SDP; a DTLS-SRTP call has none until its handshake
        // chooses one (makeCallMedia makes it wait for those keys).
        let base = try configuration(options, profile: negotiated.profile)
        do {
            return try negotiated.makeCallMedia(base: base, ssrc: ssrc ?? .random(in: .min ... .max))
        } catch {
            throw .badDescription("\(error)")
        }
    }

    /// The call's media.
    static func media(_ configuration: MediaConfiguration, sending: SRTPKeyingMaterial, receiving: SRTPKeyingMaterial,
                      ssrc: UInt32? = nil) throws(RealCallFailure) -> CallMedia {
        do {
            return try CallMedia(configuration: configuration, sendingKey: sending, receivingKey: receiving,
                                 ssrc: ssrc ?? .random(in: .min ... .max))
        } catch {
            throw .failed("\(error)")
        }
    }

    /// The loop that runs `media`: on `agent`'s selected pair when there is one (`--ice`;
    /// `remote` then only names the peer), else on `socket`, to `remote` (nil: to the sender).
    /// - Throws: `.failed` given neither, or when the loop cannot wait on the agent.
    static func loop(_ media: CallMedia, agent: ICEAgent?, socket: UDPSocket?, remote: PeerAddress?, plan: RealTimeMediaLoop.Plan,
                     handshake: RealTimeMediaLoop.Handshake?) throws(RealCallFailure) -> RealTimeMediaLoop {
        if let agent { return try RealTimeMediaLoop(media: media, ice: agent, plan: plan, handshake: handshake) }
        guard let socket else { throw .failed("no socket and no ICE agent") }
        return RealTimeMediaLoop(media: media, socket: socket, remote: remote, plan: plan, handshake: handshake)
    }

    /// How the call's SRTP is keyed, for status lines: the SDES suite, or a handshake's.
    static func protection(of media: CallMedia) -> String {
        media.isKeyedByHandshake ? "DTLS-SRTP (the suite from the handshake)" : media.configuration.srtpProfile.sdesName
    }

    /// `endpoint` as an address to send to.
    static func peer(_ endpoint: UDPEndpoint) throws(RealCallFailure) -> PeerAddress {
        do {
            return try PeerAddress(endpoint)
        } catch {
            throw .badDescription("cannot send to \(endpoint): not a numeric address")
        }
    }

    /// A line on standard error (standard output carries only SDP).
    static func say(_ command: String, _ text: String) {
        FileHandle.standardError.write(Data("voicecall \(command): \(text)\n".utf8))
    }

    /// The end-of-call figures, one line each way.
    static func report(_ command: String, _ outcome: RealTimeMediaLoop.Outcome, received: Bool, sent: Bool) {
        let statistics = outcome.statistics
        if sent {
            // What went on the wire: packets SRTP refused to protect (a key past its lifetime)
            // were encoded but never sent, and are said apart.
            let unsent = statistics.outbound.packetsSent - outcome.rtpSent
            say(command, "sent \(outcome.rtpSent) packets (\(outcome.rtpBytesSent) bytes on the wire)"
                + (unsent > 0 ? ", \(unsent) encoded but not sent" : "")
                + (outcome.refused > 0 ? ", \(outcome.refused) refused by the peer's host" : "")
                + (outcome.forgedRefusals > 0 ? ", \(outcome.forgedRefusals) ICMP errors ignored (they quote nothing we sent)" : ""))
            let remote = statistics.remoteInbound
            if remote.reportsReceived > 0 {
                say(command, String(format: "the receiver reported %d packets lost, jitter %.1f ms", remote.packetsLost, remote.jitter * 1_000)
                    + (remote.roundTripTime.map { String(format: ", round trip %.1f ms", $0 * 1_000) } ?? "")
                    + " (\(remote.reportsReceived) reports)")
            } else {
                say(command, "the receiver sent no RTCP report")
            }
        }
        if received && !sent {
            say(command, "sent \(outcome.sent) RTCP reports to the sender" + (outcome.refused > 0 ? " (\(outcome.refused) refused by its host)" : ""))
        }
        if received {
            let inbound = statistics.inbound
            say(command, String(format: "received %d packets, %d lost, jitter %.1f ms, %.1f s of audio; ",
                                inbound.packetsReceived, inbound.packetsLost, inbound.jitter * 1_000, outcome.receivedSeconds)
                + SRTPRefusals.summary(statistics.transport.srtp)
                + (statistics.inbound.packetsFromCompetingSource > 0
                    ? "; \(statistics.inbound.packetsFromCompetingSource) packets of a parallel stream refused" : "")
                + (outcome.wakeUpsAtReadLimit > 0 ? "; flooded (\(outcome.wakeUpsAtReadLimit) wake-ups read \(RealTimeMediaLoop.maximumDatagramsPerWakeUp) datagrams)" : ""))
            if inbound.jitterBufferEmittedCount > 0 {
                // How late the listener heard the packets, and how many came too late to play.
                // (Concealment is not told: it counts the silence after the sender stops too.)
                say(command, String(format: "played at a mean jitter-buffer delay of %.0f ms, %d packets too late",
                                    inbound.jitterBufferDelay / Double(inbound.jitterBufferEmittedCount) * 1_000, inbound.packetsDiscarded))
            }
        }
    }
}
