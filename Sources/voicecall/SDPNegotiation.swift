// SPDX-License-Identifier: Apache-2.0
import SRTP
import SessionDescription
import Transport

/// Our side of an SDP offer/answer, as `call`, `receive` and `send` run it: answering the
/// peer's offer (`--sdp`, the answer to `--answer-out`), or offering (`--offer-out`) and
/// waiting for the answer (`--answer-in`). Keys, when SDES keys them, are made here and go
/// only into the SDP meant for the peer.
enum SDPNegotiation {
    /// How long an offerer waits for the answer file.
    static let answerWaitSeconds = 600.0

    /// Runs our side: answers `offer` when there is one (`--sdp`), else offers. Our SDP names
    /// `socket`, or over ICE (`agent`, non-trickle) every candidate the agent gathered
    /// (`RealCallICE.localAudio`) — an offer made without ICE refused before anything is
    /// gathered or written — and once the offer/answer settles, the agent is given the peer's
    /// credentials and candidates (`RealCallICE.connect`).
    /// - Throws: what `answer`, `offer` and `RealCallICE` throw; `.failed` given neither a
    ///   socket nor an agent.
    static func negotiate(offer: SessionDescription?, socket: UDPEndpoint?, agent: ICEAgent?, certificate: DTLSCertificate?,
                          options: RealCallOptions, command: String) throws(RealCallFailure) -> NegotiatedAudio {
        let local: LocalAudio
        if let agent {
            if let offer { try RealCallICE.check(offer) }
            local = try RealCallICE.localAudio(agent, options: options, certificate: certificate, command: command)
        } else if let socket {
            local = RealCallSetup.localAudio(options, socket: socket, certificate: certificate)
        } else {
            throw .failed("no socket and no ICE agent")
        }
        let negotiated = if let offer {
            try answer(offer, from: local, options: options)
        } else {
            try self.offer(local, options: options, command: command)
        }
        if let agent { try RealCallICE.connect(agent, to: negotiated) }
        return negotiated
    }

    /// Answers `offer` with `local`, writes the answer to `--answer-out`, and returns what it
    /// settled.
    /// - Throws: `.badDescription` when the offer cannot be answered (saying what to change
    ///   when only the key exchange disagrees), `.file` when the answer cannot be written.
    static func answer(_ offer: SessionDescription, from local: LocalAudio, options: RealCallOptions) throws(RealCallFailure) -> NegotiatedAudio {
        let (answer, negotiated): (SessionDescription, NegotiatedAudio)
        do {
            (answer, negotiated) = try offer.answer(from: local) { SRTPKeyingMaterial.random(profile: $0) }
        } catch {
            throw .badDescription("cannot answer the offer: \(error)" + RealCallDTLS.hint(error, dtls: options.dtls))
        }
        try SDPExchange.write(answer, to: options.answerOut, option: "--answer-out")
        return negotiated
    }

    /// Offers `local` on `--offer-out`, then waits for the peer's answer on `--answer-in` (a
    /// file up to `answerWaitSeconds`) and returns what it settled.
    /// - Throws: `.badDescription` for an answer that does not answer the offer, `.file` for
    ///   a file that cannot be written or read, or no answer in time.
    static func offer(_ local: LocalAudio, options: RealCallOptions, command: String) throws(RealCallFailure) -> NegotiatedAudio {
        let offer: SessionDescription
        do {
            // SDES keys for each suite we offer; a DTLS-SRTP-only offer writes none.
            offer = try SessionDescription.offer(from: local, keys: local.keyExchange.allowsSDES ? local.suites.map { SRTPKeyingMaterial.random(profile: $0) } : [])
        } catch {
            throw .failed("cannot write our offer: \(error)")
        }
        // Taken before the offer exists, so the peer cannot have answered it yet: an answer
        // file left from an earlier run is never taken for this one's.
        let stale = SDPExchange.snapshot(options.answerIn)
        try SDPExchange.write(offer, to: options.offerOut, option: "--offer-out")
        RealCallSetup.say(command, "offered; waiting for the answer on "
            + (options.answerIn == "-" ? "standard input (paste it, then an empty line)" : options.answerIn))
        return try SDPExchange.awaitAnswer(options.answerIn, to: offer, stale: stale, waitingSeconds: answerWaitSeconds, command: command)
    }
}
