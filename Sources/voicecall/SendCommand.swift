// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import SessionDescription
import Transport

/// `voicecall send`: sends a WAV file as SRTP/Opus in real time to any receiver (GStreamer, a
/// SIP phone, `voicecall receive`).
enum SendCommand {
    static let usage = """
        usage: voicecall send --input IN.wav (--to HOST:PORT --crypto 'SUITE inline:KEY' | --sdp FILE|- [--dtls]
                              \(RealCallICEOptions.synopsis))
                              [--listen HOST:PORT] [--answer-out FILE|-] [--codec NAME] [--payload-type N] [--bitrate BPS] [--ptime MS] [--ssrc N]
                              [--give-up S]
          Sends IN.wav (any rate; mixed to mono, resampled to 48 kHz) as SRTP (Opus by default) in real time,
          with RTCP on the same port (rtcp-mux).
          --to           where the receiver listens
          --crypto       our key: an SDP a=crypto value without its tag, e.g.
                         'AES_CM_128_HMAC_SHA1_80 inline:<40 base64 characters>'; the
                         receiver's RTCP reports come back under the same key
          --sdp FILE|-   the receiver's SDP offer instead (file or standard input): where to send
                         and its suite; our answer (with our key) goes to standard output or --answer-out
                         (`voicecall receive --offer-out` writes such an offer)
          --dtls         with --sdp: key SRTP by a DTLS-SRTP handshake with the receiver (RFC 5763/5764)
                         instead of SDES: our answer carries the fingerprint of a certificate made
                         for this run, no key; the receiver's certificate must match its offer's
                         a=fingerprint, or nothing is sent (exit 8). An offer without a=fingerprint
                         is refused (exit 3). Sending starts when the handshake has keyed the call.
          --ice          with --sdp: send over ICE (RFC 8445, libnice) instead of one socket: our
                         candidates, all gathered first, go into our answer with a=end-of-candidates
                         (we answer: controlled); sending (and the DTLS handshake) starts once a
                         pair connects. --listen HOST:0 names the host candidates' address (a
                         specific IP: only that one; 0.0.0.0 or none: all). No pair within
                         --give-up, or a failed connection, exits 6. The offer must carry ICE
                         (`receive --ice --offer-out`; exit 3 otherwise). Works with --dtls or SDES keys.
        \(RealCallICEOptions.help)
          --listen       the local address to send from (default: any, a free port); with --sdp it
                         goes into our answer (a wildcard is written as 127.0.0.1): between two
                         machines give the address the receiver reaches us at
          --codec        opus, pcmu, pcma or g722 (default opus; with --sdp, any of them, the
                         offer's order deciding)
          --payload-type Opus's RTP payload type, 96…127 (default 111; the others' are static)
          --bitrate      Opus bitrate, 6000…510000 (default 32000)
          --ptime        packet time, 10, 20, 40 or 60 ms (default 20)
          --ssrc         the RTP source to send as, 0…4294967295 (default random; GStreamer's
                         srtpdec needs it in its caps)
          --give-up      fail (exit 6) when the receiver's host refuses every packet this long (default 10),
                         or with --dtls when no handshake completes in that time (at most 120 s)
          Keys are never printed, except in the SDP answer meant for the peer.

        """ + RealCallFailure.exitStatusHelp

    static func run(_ arguments: inout CommandArguments) {
        do {
            let options = try RealCallOptions.parse(.send, &arguments)
            try send(options)
        } catch {
            RealCallFailure.exit(command: "send", error)
        }
    }

    private static func send(_ options: RealCallOptions) throws(RealCallFailure) {
        guard let input = options.input else { throw .usage("send needs --input") }
        let source = try RealCallInput(path: input)
        // With --ice (answering an offer: controlled) the agent binds its own sockets, its
        // candidates; without, the one socket.
        let agent = try options.ice.map { _ throws(RealCallFailure) in try RealCallICE.agent(options, controlling: false) }
        defer { agent?.close() }
        let media: CallMedia
        let destination: UDPEndpoint
        var socket: UDPSocket?
        var keying: DTLSKeying?
        if let crypto = options.crypto, let to = options.to {
            destination = to
            socket = try RealCallSetup.openSocket(options.listen ?? RealCallSetup.anyLocal(like: to))
            let configuration = try RealCallSetup.configuration(options, profile: crypto.profile)
            // One key for the pair: the receiver's RTCP reports come back under it (their own
            // SSRC keeps the two directions' keystreams apart, RFC 3711 §9.1).
            media = try RealCallSetup.media(configuration, sending: crypto.keyingMaterial, receiving: crypto.keyingMaterial, ssrc: options.ssrc)
        } else {
            let certificate = try RealCallDTLS.certificate(options)
            let offer = try SDPExchange.read(options.sdp ?? "-")
            if agent == nil {
                // Our socket of the offer's family, unless --listen names one.
                guard let connection = offer.audioConnection else { throw .badDescription("the offer has no c= line") }
                socket = try RealCallSetup.openSocket(options.listen ?? RealCallSetup.anyLocal(like: UDPEndpoint(host: connection.address, port: 0)))
            }
            let negotiated = try SDPNegotiation.negotiate(offer: offer, socket: socket?.localEndpoint, agent: agent,
                                                          certificate: certificate, options: options, command: "send")
            RealCallSetup.say("send", "answered: \(negotiated)")
            destination = UDPEndpoint(host: negotiated.remoteAddress, port: negotiated.remotePort)
            media = try RealCallSetup.media(options, negotiated: negotiated, ssrc: options.ssrc)
            keying = try RealCallDTLS.keying(negotiated, certificate: certificate, giveUpSeconds: options.giveUpSeconds)
        }
        let remote = try RealCallSetup.peer(destination)
        // Over ICE the pair is not known yet: the offer's default candidate names the receiver.
        let path = socket.map { "to \(destination) from \($0.localEndpoint)" } ?? "over ICE to the receiver at \(destination)"
        RealCallSetup.say("send", String(format: "sending %.1f s of %@ %@, %@, %@ pt %d",
                                         source.durationSeconds, input, path, RealCallSetup.protection(of: media),
                                         media.configuration.codec.encodingName, Int(media.configuration.payloadType)))
        RealCallSetup.handleInterrupts()
        var plan = RealTimeMediaLoop.Plan()
        plan.input = source
        plan.endsWhenSourceEnds = true
        plan.giveUpSeconds = options.giveUpSeconds
        plan.say = { RealCallSetup.say("send", $0) }
        let handshake = try RealCallDTLS.handshake(keying, media: media, peer: remote, command: "send")
        let loop = try RealCallSetup.loop(media, agent: agent, socket: socket, remote: remote, plan: plan, handshake: handshake)
        let outcome = try loop.run { RealCallSetup.interrupted.load(ordering: .relaxed) }
        RealCallSetup.report("send", outcome, received: false, sent: true)
        if let failure = outcome.failure { throw failure }
    }
}
