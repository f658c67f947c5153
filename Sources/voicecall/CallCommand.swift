// SPDX-License-Identifier: Apache-2.0
import Foundation
import Locking
import MediaEngine
import SRTP
import SessionDescription
import Transport

/// `voicecall call`: a call both ways with an SDP offer/answer exchanged through files or
/// standard input/output — between two terminals, two machines, or with a SIP stack's SDP.
enum CallCommand {
    static let usage = """
        usage: voicecall call --listen HOST:PORT (--device NAME | --input IN.wav --output OUT.wav)
                              [--sdp FILE|- [--answer-out FILE|-] | --offer-out FILE|- --answer-in FILE|-]
                              [--dtls] \(RealCallICEOptions.synopsis)
                              [--codec NAME] [--seconds N] [--bitrate BPS] [--ptime MS] [--ssrc N] [--give-up S]
                              [--learnt-delays FILE]
          Without --sdp we offer: the offer goes to --offer-out (default standard output) and the
          answer is read from --answer-in (default standard input: paste it, then an empty line;
          a file is waited for up to 10 minutes). With --sdp we answer that offer: the answer goes
          to --answer-out (default standard output). SDP on standard output holds our key, for
          the peer (with --dtls no key, only our certificate's fingerprint); everything else goes
          to standard error.
          --device NAME  a live call on the ALSA PCM NAME ("default", "pulse", "plughw:1,0"),
                         until --seconds pass or Ctrl-C
          --input/--output  send IN.wav, record OUT.wav (48 kHz mono) instead of a sound card;
                         the call ends when IN.wav is sent and the peer has stopped for 2 s
          --listen       where we receive; the address goes into our SDP (0.0.0.0 → 127.0.0.1)
          --dtls         key SRTP by a DTLS-SRTP handshake on the media port (RFC 5763/5764)
                         instead of SDES keys in the SDP: our SDP carries the fingerprint of a
                         certificate made for this run; the peer's certificate must match the
                         a=fingerprint of its SDP, or the call ends (exit 8). Offering, we offer
                         DTLS-SRTP only (UDP/TLS/RTP/SAVPF); answering, we accept only an offer
                         with a=fingerprint (an SDES-only offer is refused, exit 3, rather than
                         quietly keyed in the SDP). Nothing is sent or played before the keys.
          --ice          carry the call over ICE (RFC 8445, libnice) instead of the --listen socket: our
                         candidates, all gathered first, go into our SDP with a=end-of-candidates
                         (offering we are controlling, answering controlled); media (and the DTLS
                         handshake) starts once a pair connects. --listen HOST:0 names the host
                         candidates' address (a specific IP: only that one; 0.0.0.0: all). No pair
                         within --give-up, or a failed connection, exits 6. Answering, the offer
                         must carry ICE (exit 3). Works with --dtls or SDES keys.
        \(RealCallICEOptions.help)
          --codec        offer or accept only this codec: opus, pcmu, pcma or g722 (default: all
                         four, Opus first; answering, the offer's order decides)
          --seconds      the longest the call lasts, up to 36000
          --bitrate      Opus bitrate, 6000…510000 (default 32000, capped by the peer's maxaveragebitrate)
          --ptime        our packet time, 10, 20, 40 or 60 ms (default 20; the peer's a=ptime wins)
          --ssrc         the RTP source to send as, 0…4294967295 (default random)
          --give-up      fail (exit 6) when nothing authenticates within this many seconds, or the
                         peer's host refuses every packet that long (default 10); with --dtls the
                         handshake must complete within it (at most 120 s), and media counts from there
          --learnt-delays FILE  start the jitter buffer from what the last call on this path learnt
                         of its delays (JSON, from an earlier run with this option; a missing
                         FILE: nothing learnt yet), and write what this call learnt there at its
                         end: a slow or jittery path then plays at its delay from the first words

        two terminals on one machine:
          A$ voicecall call --listen 127.0.0.1:40000 --device default --offer-out offer.sdp --answer-in answer.sdp
          B$ voicecall call --listen 127.0.0.1:40002 --device default --sdp offer.sdp --answer-out answer.sdp
          (keyed by DTLS-SRTP: add --dtls on both sides; over ICE: --ice --listen 127.0.0.1:0 on both)

        """ + RealCallFailure.exitStatusHelp

    static func run(_ arguments: inout CommandArguments) {
        do {
            let options = try RealCallOptions.parse(.call, &arguments)
            try call(options)
        } catch {
            RealCallFailure.exit(command: "call", error)
        }
    }

    private static func call(_ options: RealCallOptions) throws(RealCallFailure) {
        guard let listen = options.listen else { throw .usage("call needs --listen") }
        let source = try options.input.map { path throws(RealCallFailure) in try RealCallInput(path: path) }
        if let output = options.output { try RecordingDestination.check(output) }
        // With --ice the agent binds its own sockets (its candidates); without, the one port.
        let agent = try options.ice.map { _ throws(RealCallFailure) in try RealCallICE.agent(options, controlling: options.offers) }
        defer { agent?.close() }
        let socket = agent == nil ? try RealCallSetup.openSocket(listen) : nil
        // The device opens before the exchange, so a missing one fails at once, not after the
        // peer has answered.
        let engine = try options.device.map { name throws(RealCallFailure) in try startEngine(name) }
        defer { engine?.shutdown() }

        let certificate = try RealCallDTLS.certificate(options)
        // Answering, the offer is read first: one without ICE is refused before we gather or answer.
        let offer = options.offers ? nil : try SDPExchange.read(options.sdp ?? "-")
        let negotiated = try SDPNegotiation.negotiate(offer: offer, socket: socket?.localEndpoint, agent: agent,
                                                      certificate: certificate, options: options, command: "call")
        RealCallSetup.say("call", "negotiated: \(negotiated)")
        let media = try RealCallSetup.media(options, negotiated: negotiated, ssrc: options.ssrc)
        let remote = try RealCallSetup.peer(UDPEndpoint(host: negotiated.remoteAddress, port: negotiated.remotePort))
        let keying = try RealCallDTLS.keying(negotiated, certificate: certificate, giveUpSeconds: options.giveUpSeconds)
        RealCallSetup.handleInterrupts()

        if let engine {
            let transport: CallTransport
            if let agent {
                transport = CallTransport(ice: agent, dtls: keying)
            } else if let socket {
                socket.setRemote(remote)
                transport = CallTransport(rtp: socket, dtls: keying)
            } else {
                throw .failed("no socket and no ICE agent")
            }
            try talk(on: engine, media: media, transport: transport, local: socket.map { "\($0.localEndpoint)" } ?? "the ICE pair",
                     remote: remote, dtls: keying, options: options)
            return
        }
        var plan = RealTimeMediaLoop.Plan()
        plan.input = source
        plan.records = true
        plan.recording = try options.output.map { path throws(RealCallFailure) in try RealCallRecording(path: path) }
        plan.expectsMedia = true
        plan.endsWhenSourceEnds = true
        plan.maximumSeconds = options.seconds
        plan.giveUpSeconds = options.giveUpSeconds
        plan.say = { RealCallSetup.say("call", $0) }
        let handshake = try RealCallDTLS.handshake(keying, media: media, peer: remote, command: "call")
        let loop = try RealCallSetup.loop(media, agent: agent, socket: socket, remote: remote, plan: plan, handshake: handshake)
        let outcome = try loop.run { RealCallSetup.interrupted.load(ordering: .relaxed) }
        if let output = options.output {
            try plan.recording?.finish(keepingSamples: outcome.recordingFrames * media.samplesPerFrame)
            RealCallSetup.say("call", "wrote \(output)")
        }
        if let path = options.learntDelays { try LearntDelaysFile.write(media.learntDelays, to: path) }
        RealCallSetup.report("call", outcome, received: true, sent: true)
        if let failure = outcome.failure { throw failure }
    }

    /// The engine on ALSA PCM `name`, its device open (so a missing device fails here).
    private static func startEngine(_ name: String) throws(RealCallFailure) -> VoiceEngine {
        var configuration = VoiceEngineConfiguration()
        configuration.device = .alsa(name)
        do {
            let engine = try VoiceEngine(configuration: configuration)
            try engine.start()
            return engine
        } catch .device(let error) {
            throw .device("cannot open \(name.debugDescription): \(error); `voicecall devices` lists the devices")
        } catch {
            throw .failed("\(error)")
        }
    }

    /// A live call on the engine until `--seconds` pass, Ctrl-C, or the peer hangs up (closes
    /// its DTLS association). With `dtls`, the engine runs the handshake on the call's port and
    /// says what became of it: keyed (the status line names the suite and the peer's
    /// certificate), failed (the call ends with its exit status), closed by the peer. Over ICE
    /// (`transport.ice`) nothing counts until a pair connects (within `--give-up`), and a
    /// connection that fails ends the call as unreachable.
    private static func talk(on engine: VoiceEngine, media: CallMedia, transport: CallTransport, local: String, remote: PeerAddress,
                             dtls: DTLSKeying?, options: RealCallOptions) throws(RealCallFailure) {
        // The engine posts on a queue of ours; this thread looks at what came every 100 ms.
        let handshakeEvents = Locked<[VoiceEngineEvent]>([])
        engine.setEventHandler(queue: DispatchQueue(label: "voicecall.call.events")) { event in
            switch event {
            case .dtlsConnected, .dtlsFailed, .dtlsClosed, .iceStateChanged: handshakeEvents.withLock { $0.append(event) }
            default: break
            }
        }
        let id: EngineCallID
        do {
            id = try engine.addCall(media, transport: transport)
        } catch {
            throw .failed("\(error)")
        }
        // However the call ends, it leaves the engine: a DTLS one with a close_notify to the peer.
        defer { try? engine.removeCall(id) }
        RealCallSetup.say("call", "talking on \(engine.deviceName)" + (dtls == nil ? "" : " once the DTLS-SRTP handshake keys the call") + "; Ctrl-C hangs up")
        let start = Date()
        // Media is waited for from the keys on: the handshake has its own deadline (--give-up);
        // over ICE without DTLS, from the pair on.
        let overICE = transport.ice != nil
        var keyedAt: Double? = dtls == nil && !overICE ? 0 : nil
        var iceConnected = false
        var everReceived = false
        talking: while !RealCallSetup.interrupted.load(ordering: .relaxed) {
            usleep(100_000)
            let elapsed = Date().timeIntervalSince(start)
            for event in handshakeEvents.withLock({ queued in defer { queued.removeAll() }; return queued }) {
                switch event {
                case let .dtlsConnected(call, profile, peerFingerprint) where call == id:
                    keyedAt = elapsed
                    RealCallSetup.say("call", RealCallDTLS.connected(profile: profile, peerFingerprint: peerFingerprint))
                case let .dtlsFailed(call, error) where call == id:
                    throw RealCallDTLS.failure(error, peer: "\(remote)", keyed: keyedAt != nil)
                case let .dtlsClosed(call) where call == id:
                    RealCallSetup.say("call", RealCallDTLS.closed)
                    break talking
                case let .iceStateChanged(call, state) where call == id:
                    if (state == .connected || state == .completed) && !iceConnected {
                        iceConnected = true
                        RealCallSetup.say("call", "ICE connected" + (dtls == nil ? "" : "; the DTLS-SRTP handshake starts"))
                        if dtls == nil { keyedAt = elapsed }
                    }
                    if state == .failed { throw RealCallICE.failed(connected: iceConnected) }
                default:
                    break
                }
            }
            if overICE, !iceConnected, elapsed >= options.giveUpSeconds { throw RealCallICE.timedOut(options.giveUpSeconds) }
            if let seconds = options.seconds, elapsed >= seconds { break }
            let received = (engine.statistics(of: id)?.inbound.packetsReceived ?? 0) > 0
            everReceived = everReceived || received
            if !everReceived, let keyedAt, elapsed - keyedAt >= options.giveUpSeconds {
                throw .unreachable("no SRTP packet that authenticates arrived in \(Int(options.giveUpSeconds)) s"
                    + (dtls == nil ? "" : " after the DTLS-SRTP handshake") + " on \(local)")
            }
        }
        let statistics = engine.statistics(of: id)
        if let statistics {
            RealCallSetup.say("call", String(format: "sent %d packets; received %d, %d lost, jitter %.1f ms",
                                              statistics.outbound.packetsSent, statistics.inbound.packetsReceived,
                                              statistics.inbound.packetsLost, statistics.inbound.jitter * 1_000))
        }
    }
}
