// SPDX-License-Identifier: Apache-2.0
import SRTP
import Transport

/// A call's DTLS-SRTP handshake, driven for the call: the DTLS datagrams its port receives go
/// in (those `CallMedia.receiveDatagram` hands back as `.multiplexed(.dtls)`), the flights to
/// send come out, and when the handshake completes the call is keyed
/// (`CallMedia.updateKeys`). The engine's network thread runs one per DTLS call; a program
/// that runs a call's network side itself (as `voicecall send` does) runs it the same way.
/// Not thread-safe: one thread drives it.
public final class DTLSCallKeying {
    /// What became of the handshake.
    public enum Event: Sendable, Equatable {
        /// Keyed with `profile`; the peer showed the certificate its SDP named.
        case connected(profile: SRTPProfile, peerFingerprint: CertificateFingerprint)
        /// Failed: the call has no keys.
        case failed(DTLSError)
        /// The peer closed the association (close_notify).
        case closed
    }

    /// The association (its state, configuration and timers).
    public let association: DTLSAssociation
    private let media: CallMedia

    /// The handshake that keys `media` as `keying` says.
    /// - Throws: `VoiceEngineError.keyingMismatch` unless `media` was made with
    ///   `MediaProtection.srtpKeyedByHandshake`; `.dtls` when the association cannot be made.
    public init(media: CallMedia, keying: DTLSKeying) throws(VoiceEngineError) {
        guard media.isKeyedByHandshake else {
            throw .keyingMismatch("the transport runs a DTLS handshake, but the call was not made to be keyed by one (MediaProtection.srtpKeyedByHandshake)")
        }
        do {
            association = try DTLSAssociation(certificate: keying.certificate, configuration: keying.configuration)
        } catch {
            throw .dtls(error)
        }
        self.media = media
    }

    /// Whether a datagram the call handed back as `disposition`, from `source`, is for the
    /// handshake: DTLS (RFC 7983) from the peer's address `peer` (nil: not known yet, any).
    /// Only the peer's: anyone who can reach the port could otherwise talk to the handshake
    /// (and a failed handshake ends the call). Every program that runs a call's network side
    /// filters with this, so they all take the same datagrams.
    public static func takes(_ disposition: ReceivedDatagramDisposition, from source: PeerAddress, peer: PeerAddress?) -> Bool {
        disposition == .multiplexed(.dtls) && (peer.map { $0 == source } ?? true)
    }

    /// Starts the handshake (a client's first flight is then in `drainDatagrams`).
    public func start(nowMs: Double) { association.start(nowMs: nowMs) }

    /// Takes a DTLS datagram from the peer; keys the call when it completes the handshake.
    public func receive(_ datagram: UnsafeRawBufferPointer, nowMs: Double) -> Event? {
        handle(association.receive(datagram, nowMs: nowMs))
    }

    /// Retransmits a lost flight when due; fails the handshake past its deadline.
    public func poll(nowMs: Double) -> Event? { handle(association.poll(nowMs: nowMs)) }

    /// When `poll` has work next (nil once the handshake is over).
    public func nextWakeUpMs(nowMs: Double) -> Double? { association.nextWakeUpMs(nowMs: nowMs) }

    /// Hands every datagram waiting for the peer to `send`.
    public func drainDatagrams(_ send: ([UInt8]) -> Void) { association.drainDatagrams(send) }

    /// Ends the association (a close_notify then waits in `drainDatagrams`).
    public func close() { association.close() }

    private func handle(_ outcome: DTLSAssociation.Outcome?) -> Event? {
        switch outcome {
        case nil:
            return nil
        case let .connected(keys):
            do throws(CallMediaError) {
                try media.updateKeys(sending: keys.sending, receiving: keys.receiving)
                return .connected(profile: keys.profile, peerFingerprint: keys.peerFingerprint)
            } catch {
                association.close()
                guard case let .srtp(refusal) = error else { return .failed(.badParameter("the call refused the handshake's keys: \(error)")) }
                return .failed(.keys(refusal))
            }
        case let .failed(error):
            return .failed(error)
        case .closed:
            return .closed
        }
    }
}
