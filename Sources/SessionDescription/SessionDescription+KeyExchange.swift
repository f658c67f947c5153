// SPDX-License-Identifier: Apache-2.0
import SRTP

// Which way offer and answer key SRTP: DTLS-SRTP (RFC 5763) when the offer has a fingerprint
// and the answerer allows it, else SDES (RFC 4568); and for DTLS-SRTP, who is the client.

/// What an answer carries to key SRTP, and what it settles.
struct AnsweredKeys {
    /// The answer's transport profile.
    var profile: String
    /// Our `a=crypto` line (SDES), or none.
    var crypto: [SDESCryptoAttribute] = []
    /// Our fingerprint and setup (DTLS-SRTP), or none.
    var dtls = DTLSAttributes()
    /// What the answer settles.
    var keying: NegotiatedKeying
}

extension SessionDescription {
    /// The answer's keying for the offered audio section (this description is the offer).
    func answeringKeys(_ offered: AudioDescription, local: LocalAudio,
                       key: (SRTPProfile) -> SRTPKeyingMaterial) throws(SessionDescriptionError) -> AnsweredKeys {
        let dtls = audioDTLS
        let offersDTLS = !dtls.fingerprints.isEmpty || !dtls.unsupportedFingerprintHashes.isEmpty
        let offersSDES = !offered.crypto.isEmpty || !offered.unsupportedSuites.isEmpty
        if let ourFingerprint = local.keyExchange.dtlsFingerprint, offersDTLS {
            if !dtls.fingerprints.isEmpty { return try answeringDTLS(offered, dtls: dtls, fingerprint: ourFingerprint) }
            // Only fingerprints we cannot check: say so, unless SDES is there to fall back on.
            if !(local.keyExchange.allowsSDES && offersSDES) { throw .noSupportedFingerprint(hashFunctions: dtls.unsupportedFingerprintHashes) }
        }
        // SDES also when the offer keys SRTP in no way at all: its error lists the suites.
        guard local.keyExchange.allowsSDES, offersSDES || !offersDTLS else {
            throw .noCommonKeyExchange(offered: Self.keyExchangeMethods(offered, dtls: dtls), accepted: local.keyExchange.methodNames)
        }
        guard let theirs = offered.crypto.first(where: { local.suites.contains($0.profile) && $0.unprotectingParameter == nil }) else {
            throw .noCommonSuite(offered: offered.crypto.map(\.profile.sdesName) + offered.unsupportedSuites,
                                 accepted: local.suites.map(\.sdesName))
        }
        let ours: SDESCryptoAttribute
        do {
            ours = try SDESCryptoAttribute(tag: theirs.tag, keyingMaterial: key(theirs.profile))
        } catch {
            // The tag came from a parsed line, so it is valid.
            throw .noCommonSuite(offered: [theirs.profile.sdesName], accepted: local.suites.map(\.sdesName))
        }
        // RTP/SAVP as SDES answers always were, whatever the offer's profile.
        return AnsweredKeys(profile: "RTP/SAVP", crypto: [ours],
                            keying: .sdes(sending: ours.keyingMaterial, receiving: theirs.keyingMaterial))
    }

    /// A DTLS-SRTP answer: the offer's profile mirrored, our fingerprint, the setup that answers
    /// the offer's.
    private func answeringDTLS(_ offered: AudioDescription, dtls: DTLSAttributes,
                               fingerprint: CertificateFingerprint) throws(SessionDescriptionError) -> AnsweredKeys {
        let theirs = dtls.setup ?? DTLSSetup.absentInOffer
        guard let ours = theirs.answer, let role = ours.role else { throw .unacceptableSetup(theirs) }
        guard offered.rtcpMux else { throw .rtcpMuxRequired }
        return AnsweredKeys(profile: offered.profile, dtls: DTLSAttributes(fingerprints: [fingerprint], setup: ours),
                            keying: .dtls(NegotiatedDTLS(role: role, remoteFingerprints: dtls.fingerprints)))
    }

    /// What this answer's keying settles for the offerer of `offer` (this description is the
    /// answer, `answered` its audio section).
    func settledKeying(_ answered: AudioDescription, offer: SessionDescription) throws(SessionDescriptionError) -> NegotiatedKeying {
        let theirDTLS = audioDTLS
        let ourDTLS = offer.audioDTLS
        let weOfferedDTLS = !ourDTLS.fingerprints.isEmpty
        if weOfferedDTLS, !theirDTLS.fingerprints.isEmpty {
            // RFC 5763 §5: the answer settles the role; without a=setup it is passive (RFC 4145).
            let theirs = theirDTLS.setup ?? DTLSSetup.absentInAnswer
            guard let theirRole = theirs.role else { throw .unacceptableSetup(theirs) }
            // Our offer said actpass (as we make them), or a side the answer must take the
            // other of.
            let offered = ourDTLS.setup ?? DTLSSetup.absentInOffer
            guard offered == .actpass || offered.role == theirRole.peer else {
                throw .conflictingSetup(offered: ourDTLS.setup, answered: theirDTLS.setup)
            }
            guard answered.rtcpMux, offer.audio?.rtcpMux == true else { throw .rtcpMuxRequired }
            return .dtls(NegotiatedDTLS(role: theirRole.peer, remoteFingerprints: theirDTLS.fingerprints))
        }
        let answersSDES = !answered.crypto.isEmpty || !answered.unsupportedSuites.isEmpty
        let answersDTLS = !theirDTLS.fingerprints.isEmpty || !theirDTLS.unsupportedFingerprintHashes.isEmpty
        if weOfferedDTLS, answersDTLS, !answersSDES { throw .noSupportedFingerprint(hashFunctions: theirDTLS.unsupportedFingerprintHashes) }
        if answersDTLS, !answersSDES {
            let ours = Self.keyExchangeMethods(offer.audio ?? AudioDescription(port: 0), dtls: ourDTLS)
            throw .noCommonKeyExchange(offered: Self.keyExchangeMethods(answered, dtls: theirDTLS), accepted: ours)
        }
        guard let theirs = answered.crypto.first,
              let ours = offer.audio?.crypto.first(where: { $0.tag == theirs.tag && $0.profile == theirs.profile })
        else {
            throw .noCommonSuite(offered: answered.crypto.map(\.profile.sdesName) + answered.unsupportedSuites,
                                 accepted: offer.audio?.crypto.map(\.profile.sdesName) ?? [])
        }
        return .sdes(sending: ours.keyingMaterial, receiving: theirs.keyingMaterial)
    }

    /// The ways a section keys SRTP, for an error: `DTLS-SRTP` for any `a=fingerprint`, `SDES`
    /// for any `a=crypto`.
    static func keyExchangeMethods(_ audio: AudioDescription, dtls: DTLSAttributes) -> [String] {
        (dtls.fingerprints.isEmpty && dtls.unsupportedFingerprintHashes.isEmpty ? [] : [KeyExchange.dtlsName])
            + (audio.crypto.isEmpty && audio.unsupportedSuites.isEmpty ? [] : [KeyExchange.sdesName])
    }
}

extension ICEAttributes {
    /// Itself, or nil when there is no attribute.
    var nonEmpty: ICEAttributes? { isEmpty ? nil : self }
}
