// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import SessionDescription
import Transport

/// `voicecall receive`: listens for SRTP/Opus from any sender (GStreamer, a SIP phone, `voicecall
/// send`) and writes what it plays out to a WAV file. Sends no media; its RTCP receiver reports
/// go back to the address the sender's packets come from.
enum ReceiveCommand {
    static let usage = """
        usage: voicecall receive --listen HOST:PORT (--crypto 'SUITE inline:KEY' | --sdp FILE|-)
                                 --output OUT.wav [--codec NAME] [--payload-type N] [--seconds N] [--give-up S]
          Receives SRTP (Opus, or the codec --codec or the SDP names) on HOST:PORT and writes the audio to OUT.wav (48 kHz mono) from the
          first packet that authenticates until the sender stops for 2 s, --seconds pass, or Ctrl-C.
          RTCP receiver reports (loss, jitter, SRTCP) go back to where the sender's packets come from.
          --crypto       the sender's key (our RTCP reports use it too): an SDP a=crypto
                         value without its tag, e.g.
                         'AES_CM_128_HMAC_SHA1_80 inline:<40 base64 characters>' (suites:
                         \(SRTPProfile.allCases.map(\.sdesName).joined(separator: ", ")))
          --sdp FILE|-   the sender's SDP offer instead (file or standard input); our answer
                         (with our key, for the sender) goes to standard output or --answer-out
          --codec        opus, pcmu, pcma or g722 (default opus; with --sdp, any of them, the
                         offer's order deciding)
          --payload-type Opus's RTP payload type, 96…127 (default 111; the others' are static)
          --seconds      record at most this long, up to 36000 (default: until the sender stops)
          --give-up      fail (exit 6) when nothing authenticates within this many seconds (default 10)
          Keys are never printed, except in the SDP answer meant for the peer.

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
        let socket = try RealCallSetup.openSocket(listen)
        let media: CallMedia
        if let crypto = options.crypto {
            let configuration = try RealCallSetup.configuration(options, profile: crypto.profile)
            // One key for the pair: our RTCP reports go back under the sender's key, with our
            // own SSRC (RFC 3711 §9.1), so a sender given only that key can read them.
            media = try RealCallSetup.media(configuration, sending: crypto.keyingMaterial, receiving: crypto.keyingMaterial)
        } else {
            let offer = try SDPExchange.read(options.sdp ?? "-")
            let local = RealCallSetup.localAudio(options, socket: socket.localEndpoint)
            let (answer, negotiated): (SessionDescription, NegotiatedAudio)
            do {
                (answer, negotiated) = try offer.answer(from: local) { SRTPKeyingMaterial.random(profile: $0) }
            } catch {
                throw .badDescription("cannot answer the offer: \(error)")
            }
            try SDPExchange.write(answer, to: options.answerOut, option: "--answer-out")
            RealCallSetup.say("receive", "answered: \(negotiated)")
            media = try RealCallSetup.media(options, negotiated: negotiated)
        }
        RealCallSetup.say("receive", "listening on \(socket.localEndpoint), \(media.configuration.srtpProfile.sdesName), \(media.configuration.codec) pt \(media.configuration.payloadType)")
        RealCallSetup.handleInterrupts()
        var plan = RealTimeMediaLoop.Plan()
        plan.records = true
        plan.recording = try RealCallRecording(path: output)
        plan.expectsMedia = true
        plan.maximumSeconds = options.seconds
        plan.endsAfterPeerSilenceSeconds = 2
        plan.giveUpSeconds = options.giveUpSeconds
        plan.repliesToSender = true
        let loop = RealTimeMediaLoop(media: media, socket: socket, remote: nil, plan: plan)
        let outcome = try loop.run { RealCallSetup.interrupted.load(ordering: .relaxed) }
        try plan.recording?.finish(keepingSamples: outcome.recordingFrames * media.samplesPerFrame)
        RealCallSetup.report("receive", outcome, received: true, sent: false)
        RealCallSetup.say("receive", "wrote \(output)")
        if let failure = outcome.failure { throw failure }
    }
}
