// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import SessionDescription
import Transport

/// `voicecall receive`: listens for SRTP/Opus from any sender (GStreamer, a SIP phone, `voicecall
/// send`) and writes what it plays out to a WAV file. Sends no media; its RTCP receiver reports
/// go back to the address the sender's packets come from (over ICE, on the selected pair).
enum ReceiveCommand {
    static let usage = """
        usage: voicecall receive --listen HOST:PORT --output OUT.wav
                                 (--crypto 'SUITE inline:KEY' | --sdp FILE|- [--answer-out FILE|-]
                                  | --offer-out FILE|- [--answer-in FILE|-]) [--dtls]
                                 \(RealCallICEOptions.synopsis)
                                 [--codec NAME] [--payload-type N] [--seconds N] [--give-up S]
                                 [--learnt-delays FILE]
          Receives SRTP (Opus, or the codec --codec or the SDP names) on HOST:PORT and writes the audio to OUT.wav (48 kHz mono) from the
          first packet that authenticates until the sender stops for 2 s, --seconds pass, or Ctrl-C.
          RTCP receiver reports (loss, jitter, SRTCP) go back to where the sender's packets come from.
          --crypto       the sender's key (our RTCP reports use it too): an SDP a=crypto
                         value without its tag, e.g.
                         'AES_CM_128_HMAC_SHA1_80 inline:<40 base64 characters>' (suites:
                         \(SRTPProfile.allCases.map(\.sdesName).joined(separator: ", ")))
          --sdp FILE|-   the sender's SDP offer instead (file or standard input); our answer
                         (with our key, for the sender) goes to standard output or --answer-out
          --offer-out FILE|-  or we offer instead: our offer (with our key) goes to FILE or standard
                         output, and the sender's answer (`voicecall send --sdp`) is read from
                         --answer-in (default standard input: paste it, then an empty line; a file
                         is waited for up to 10 minutes)
          --dtls         with --sdp or --offer-out: key SRTP by a DTLS-SRTP handshake with the sender
                         (RFC 5763/5764) instead of SDES: our SDP carries the fingerprint of a
                         certificate made for this run, no key; the sender's certificate must match
                         the a=fingerprint of its SDP, or nothing is recorded (exit 8). We offer
                         DTLS-SRTP only, and answer only an offer with a=fingerprint (exit 3 otherwise)
          --ice          with --sdp or --offer-out: receive over ICE (RFC 8445, libnice) instead of the
                         --listen socket: our candidates, all gathered first, go into our SDP with
                         a=end-of-candidates (offering we are controlling, answering controlled);
                         our RTCP reports go back on the selected pair. --listen HOST:0 names the
                         host candidates' address (a specific IP: only that one; 0.0.0.0: all). No
                         pair within --give-up, or a failed connection, exits 6. Answering, the
                         offer must carry ICE (exit 3). Works with --dtls or SDES keys.
        \(RealCallICEOptions.help)
          --codec        opus, pcmu, pcma or g722 (default opus; with --sdp, any of them, the
                         offer's order deciding)
          --payload-type Opus's RTP payload type, 96…127 (default 111; the others' are static)
          --seconds      record at most this long, up to 36000 (default: until the sender stops)
          --give-up      fail (exit 6) when nothing authenticates within this many seconds (default 10);
                         with --dtls the handshake must complete within it (at most 120 s), and
                         media counts from there
          --learnt-delays FILE  start the jitter buffer from what the last call on this path learnt
                         of its delays (JSON, from an earlier run with this option; a missing
                         FILE: nothing learnt yet), and write what this call learnt there at its
                         end: a slow or jittery path then plays at its delay from the first words
          Keys are never printed, except in the SDP meant for the peer.

        """ + RealCallFailure.exitStatusHelp

    static func run(_ arguments: inout CommandArguments) {
        do {
            let options = try RealCallOptions.parse(.receive, &arguments)
            try receive(options)
        } catch {
            RealCallFailure.exit(command: "receive", error)
        }
    }

    private static func receive(_ options: RealCallOptions) throws(RealCallFailure) {
        guard let listen = options.listen, let output = options.output else { throw .usage("receive needs --listen and --output") }
        try RecordingDestination.check(output)
        // With --ice the agent binds its own sockets (its candidates); without, the one port.
        let agent = try options.ice.map { _ throws(RealCallFailure) in try RealCallICE.agent(options, controlling: options.offers) }
        defer { agent?.close() }
        let socket = agent == nil ? try RealCallSetup.openSocket(listen) : nil
        let media: CallMedia
        var handshake: RealTimeMediaLoop.Handshake?
        if let crypto = options.crypto {
            let configuration = try RealCallSetup.configuration(options, profile: crypto.profile)
            // One key for the pair: our RTCP reports go back under the sender's key, with our
            // own SSRC (RFC 3711 §9.1), so a sender given only that key can read them.
            media = try RealCallSetup.media(configuration, sending: crypto.keyingMaterial, receiving: crypto.keyingMaterial)
        } else {
            let certificate = try RealCallDTLS.certificate(options)
            // Answering, the offer is read first: one without ICE is refused before we gather or answer.
            let offer = options.offers ? nil : try SDPExchange.read(options.sdp ?? "-")
            let negotiated = try SDPNegotiation.negotiate(offer: offer, socket: socket?.localEndpoint, agent: agent,
                                                          certificate: certificate, options: options, command: "receive")
            RealCallSetup.say("receive", (options.offers ? "negotiated: " : "answered: ") + "\(negotiated)")
            media = try RealCallSetup.media(options, negotiated: negotiated)
            if let keying = try RealCallDTLS.keying(negotiated, certificate: certificate, giveUpSeconds: options.giveUpSeconds) {
                // Media replies go where the sender's authenticated packets come from; the
                // handshake, before there are any, to the address its SDP gave (over ICE, on
                // the pair: the address only names the sender).
                let peer = try RealCallSetup.peer(UDPEndpoint(host: negotiated.remoteAddress, port: negotiated.remotePort))
                handshake = try RealCallDTLS.handshake(keying, media: media, peer: peer, command: "receive")
            }
        }
        RealCallSetup.say("receive", (socket.map { "listening on \($0.localEndpoint)" } ?? "receiving over ICE")
            + ", \(RealCallSetup.protection(of: media)), \(media.configuration.codec) pt \(media.configuration.payloadType)")
        RealCallSetup.handleInterrupts()
        var plan = RealTimeMediaLoop.Plan()
        plan.records = true
        plan.recording = try RealCallRecording(path: output)
        plan.expectsMedia = true
        plan.maximumSeconds = options.seconds
        plan.endsAfterPeerSilenceSeconds = 2
        plan.giveUpSeconds = options.giveUpSeconds
        plan.repliesToSender = true
        plan.say = { RealCallSetup.say("receive", $0) }
        let loop = try RealCallSetup.loop(media, agent: agent, socket: socket, remote: nil, plan: plan, handshake: handshake)
        let outcome = try loop.run { RealCallSetup.interrupted.load(ordering: .relaxed) }
        try plan.recording?.finish(keepingSamples: outcome.recordingFrames * media.samplesPerFrame)
        if let path = options.learntDelays { try LearntDelaysFile.write(media.learntDelays, to: path) }
        RealCallSetup.report("receive", outcome, received: true, sent: false)
        RealCallSetup.say("receive", "wrote \(output)")
        if let failure = outcome.failure { throw failure }
    }
}
