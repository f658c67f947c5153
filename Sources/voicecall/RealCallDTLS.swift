// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import SessionDescription
import Transport

/// How `receive`, `send` and `call` key a call by DTLS-SRTP (`--dtls`): a certificate made for
/// the run (its fingerprint goes into our SDP), the handshake the offer/answer settled with
/// `--give-up` as its deadline, and what became of it, in words and exit statuses.
///
/// Fingerprints are digests of public certificates and are printed freely; the keys come out
/// of the handshake straight into SRTP and are never printed.
enum RealCallDTLS {
    /// A fresh certificate with `--dtls` (one per run, as browsers make one per session: a
    /// key that lives as long as the process cannot outlive it), else nil.
    static func certificate(_ options: RealCallOptions) throws(RealCallFailure) -> DTLSCertificate? {
        guard options.dtls else { return nil }
        do {
            return try DTLSCertificate(commonName: "voicecall")
        } catch {
            throw .failed("cannot make a DTLS certificate: \(error)")
        }
    }

    /// How our SDP keys SRTP: with a certificate, DTLS-SRTP alone — an offer of it, and an
    /// answer only to an offer that has it (an SDES-only offer is refused, never taken as a
    /// quiet fall-back to keys written in the SDP); without, SDES alone, as before `--dtls`.
    static func keyExchange(certificate: DTLSCertificate?) -> KeyExchange {
        certificate.map { .dtls(fingerprint: $0.fingerprint) } ?? .sdes
    }

    /// The handshake that keys `negotiated`'s call (nil for SDES), presenting `certificate`,
    /// with `giveUpSeconds` (`--give-up`) as its deadline within the association's bounds
    /// (0.1…120 s): a peer that never completes one ends the call as one that never sends.
    static func keying(_ negotiated: NegotiatedAudio, certificate: DTLSCertificate?,
                       giveUpSeconds: Double) throws(RealCallFailure) -> DTLSKeying? {
        guard case .dtls = negotiated.keying else { return nil }
        // Our SDP named no fingerprint without --dtls, so no negotiation can get here without
        // one; said as a failure rather than assumed.
        guard let certificate, var keying = negotiated.dtlsKeying(certificate: certificate) else {
            throw .failed("the offer/answer settled on DTLS-SRTP without a certificate of ours")
        }
        keying.configuration.handshakeTimeoutMs = min(max(Int(giveUpSeconds * 1_000), 100), 120_000)
        return keying
    }

    /// What to change on our side when an offer names no key exchange we accept: `--dtls`
    /// for a DTLS-SRTP-only offer, no `--dtls` for an SDES-only one; empty otherwise.
    static func hint(_ error: SessionDescriptionError, dtls: Bool) -> String {
        guard case let .noCommonKeyExchange(offered, _) = error else { return "" }
        if !dtls && offered.contains("DTLS-SRTP") { return " (answer with --dtls to key by a DTLS-SRTP handshake)" }
        if dtls && !offered.contains("DTLS-SRTP") { return " (--dtls answers only offers with a=fingerprint; leave it out to answer with SDES)" }
        return ""
    }

    /// The status line for a handshake that keyed the call.
    static func connected(profile: SRTPProfile, peerFingerprint: CertificateFingerprint) -> String {
        "DTLS-SRTP connected: \(profile.sdesName); the peer's certificate \(peerFingerprint.sdpValue) is the one its SDP named"
    }

    /// The status line for the peer's close_notify.
    static let closed = "the peer closed the DTLS association (close_notify): it has hung up"

    /// The failure that ends a command whose association with `peer` failed: exit 6 for a
    /// handshake that never completed (nobody there, a firewall), 8 for one the peer or its
    /// certificate failed, or a fatal alert once `keyed`.
    static func failure(_ error: DTLSError, peer: String, keyed: Bool = false) -> RealCallFailure {
        let unkeyed = keyed ? "" : "; no media was sent or played"
        switch error {
        case let .handshakeTimedOut(milliseconds):
            return .unreachable("no DTLS-SRTP handshake with \(peer) within \(Self.seconds(milliseconds)); "
                + "is the other side running with --dtls, is that its address, and does the firewall let UDP through?")
        case let .fingerprintMismatch(expected, presented):
            return .handshake("the certificate \(peer) presented (\(presented?.sdpValue ?? "none")) matches no a=fingerprint of its SDP ("
                + expected.map(\.sdpValue).joined(separator: ", ") + "): the SDP was altered on its way, or belongs to another call" + unkeyed)
        case let .handshakeFailed(reason):
            // Most often the peer's alert: it refused our certificate (its SDP from us was altered) or the profiles.
            return .handshake("\(reason) (with \(peer): an alert names the peer's refusal; does the SDP it holds carry our "
                + "a=fingerprint?)" + unkeyed)
        default:
            return .handshake("\(error) (with \(peer))" + unkeyed)
        }
    }

    private static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1_000 == 0 ? "\(milliseconds / 1_000) s" : "\(Double(milliseconds) / 1_000) s"
    }
}

extension RealCallDTLS {
    /// The handshake a `RealTimeMediaLoop` runs for `media` (made keyed by handshake) with
    /// `peer`, or nil without `keying`; its status lines go out as `command`'s.
    static func handshake(_ keying: DTLSKeying?, media: CallMedia, peer: PeerAddress,
                          command: String) throws(RealCallFailure) -> RealTimeMediaLoop.Handshake? {
        guard let keying else { return nil }
        do {
            return RealTimeMediaLoop.Handshake(keying: try DTLSCallKeying(media: media, keying: keying), peer: peer) {
                RealCallSetup.say(command, $0)
            }
        } catch {
            throw .failed("\(error)")
        }
    }
}
