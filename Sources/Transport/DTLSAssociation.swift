// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
internal import COpenSSLShims
public import SRTP

/// One DTLS association that keys a call's SRTP (DTLS-SRTP, RFC 5763/5764), sans I/O: it is
/// given the DTLS datagrams that arrive (RFC 7983: first byte 20…63) and the time, and leaves
/// the datagrams to send in `drainDatagrams`. The engine's network thread drives it; nothing
/// here blocks, reads a socket or starts a thread.
///
/// The peer is authenticated by its certificate's fingerprint from its SDP: a certificate that
/// matches none fails the handshake (`DTLSError.fingerprintMismatch`, a bad_certificate alert
/// to the peer), and no key leaves the association. Lost flights are sent again, from
/// `configuration.initialRetransmissionMs` doubling (RFC 6347 §4.2.4.1); a handshake not done
/// within `configuration.handshakeTimeoutMs` of `start` fails with `.handshakeTimedOut`.
/// Once connected it keeps answering the peer's retransmitted last flight and reports its
/// close_notify or fatal alert.
public final class DTLSAssociation {
    /// How an association runs.
    public struct Configuration: Sendable, Equatable {
        /// Our end of the handshake (`a=setup:active` is the client).
        public var role: DTLSRole
        /// The peer's fingerprints from its SDP: its certificate must match one.
        public var remoteFingerprints: [CertificateFingerprint]
        /// The SRTP suites we accept, most wanted first (each must have a DTLS-SRTP profile).
        public var profiles: [SRTPProfile] = SRTPProfile.dtlsPreference
        /// The largest datagram to send, bytes (576…9000): a handshake flight is fragmented to fit.
        public var mtu: Int = 1_200
        /// The first retransmission timeout, ms (10…3000); it doubles on every retransmission,
        /// up to `maximumRetransmissionMs`.
        public var initialRetransmissionMs: Int = 100
        /// The longest retransmission timeout, ms.
        public var maximumRetransmissionMs: Int = 3_200
        /// How long the whole handshake may take from `start`, ms (100…120 000).
        public var handshakeTimeoutMs: Int = 10_000

        /// An association for `role` authenticating the peer by `remoteFingerprints`.
        public init(role: DTLSRole, remoteFingerprints: [CertificateFingerprint]) {
            self.role = role
            self.remoteFingerprints = remoteFingerprints
        }

        /// Refuses what OpenSSL or the handshake cannot work with.
        func validate() throws(DTLSError) {
            guard !remoteFingerprints.isEmpty else { throw .badParameter("no fingerprint to check the peer's certificate against") }
            guard !profiles.isEmpty else { throw .badParameter("no SRTP profile to offer") }
            if let profile = profiles.first(where: { $0.dtlsProfileName == nil }) {
                throw .badParameter("\(profile.sdesName) has no DTLS-SRTP protection profile")
            }
            guard (576...9_000).contains(mtu) else { throw .badParameter("MTU must be 576…9000 bytes, got \(mtu)") }
            guard (10...3_000).contains(initialRetransmissionMs) else {
                throw .badParameter("initial retransmission timeout must be 10…3000 ms, got \(initialRetransmissionMs)")
            }
            guard (initialRetransmissionMs...60_000).contains(maximumRetransmissionMs) else {
                throw .badParameter("maximum retransmission timeout must be \(initialRetransmissionMs)…60000 ms, got \(maximumRetransmissionMs)")
            }
            guard (100...120_000).contains(handshakeTimeoutMs) else {
                throw .badParameter("handshake timeout must be 100…120000 ms, got \(handshakeTimeoutMs)")
            }
        }
    }

    /// Where the association stands.
    public enum State: Sendable, Equatable {
        /// Made, not started.
        case idle
        /// Exchanging flights.
        case handshaking
        /// Keyed: `keys` holds what SRTP needs.
        case connected
        /// Ended by an error: no keys, no media.
        case failed(DTLSError)
        /// Ended by either side's close_notify.
        case closed
    }

    /// A change of state, returned by the call that caused it.
    public enum Outcome: Sendable, Equatable {
        /// The handshake completed: key SRTP with these.
        case connected(DTLSSRTPKeys)
        /// The association failed (before or after connecting).
        case failed(DTLSError)
        /// The peer closed the association with close_notify.
        case closed
    }

    /// The configuration it runs with.
    public let configuration: Configuration
    /// Where it stands.
    public private(set) var state: State = .idle
    /// The keys, once connected.
    public private(set) var keys: DTLSSRTPKeys?

    private let ssl: OpaquePointer
    private let writer: DTLSDatagramWriter
    private let reader: OpaquePointer
    private var deadlineMs = Double.infinity
    /// What the certificate check found, for the error the failed handshake reports.
    fileprivate var mismatch: DTLSError?

    /// An association presenting `certificate` and checking the peer against `configuration`.
    /// - Throws: `DTLSError.badParameter` for a configuration out of range, `.setupFailed`
    ///   when OpenSSL cannot make the context.
    public init(certificate: DTLSCertificate, configuration: Configuration) throws(DTLSError) {
        try configuration.validate()
        self.configuration = configuration
        OpenSSLErrors.clear()
        guard let context = SSL_CTX_new(DTLS_method()) else { throw Self.setupFailure("SSL_CTX_new") }
        defer { SSL_CTX_free(context) }
        guard ve_ssl_ctx_set_min_proto_version(context, DTLS1_2_VERSION) == 1 else { throw Self.setupFailure("SSL_CTX_set_min_proto_version") }
        guard SSL_CTX_use_certificate(context, certificate.certificate) == 1 else { throw Self.setupFailure("SSL_CTX_use_certificate") }
        guard SSL_CTX_use_PrivateKey(context, certificate.key) == 1 else { throw Self.setupFailure("SSL_CTX_use_PrivateKey") }
        let profileList = configuration.profiles.compactMap(\.dtlsProfileName).joined(separator: ":")
        // Unlike almost every other OpenSSL call, this one returns 0 on success.
        guard SSL_CTX_set_tlsext_use_srtp(context, profileList) == 0 else { throw Self.setupFailure("SSL_CTX_set_tlsext_use_srtp") }
        // Both ends must show a certificate; only its fingerprint is checked (verifyPeer).
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, verifyPeer)
        guard let ssl = SSL_new(context) else { throw Self.setupFailure("SSL_new") }
        guard let writer = DTLSDatagramWriter(mtu: configuration.mtu), let reader = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw Self.setupFailure("BIO_new")
        }
        // An empty read BIO says "try again later", not "end of stream".
        _ = ve_bio_set_mem_eof_return(reader, -1)
        SSL_set_bio(ssl, reader, writer.bio)
        // SSL_OP_NO_QUERY_MTU (bit 12; a macro expression Swift cannot import): the MTU is ours, not the socket's.
        _ = ve_ssl_set_options(ssl, 1 << 12)
        _ = ve_ssl_set_mtu(ssl, configuration.mtu)
        DTLS_set_timer_cb(ssl, retransmissionTimeout)
        self.ssl = ssl
        self.writer = writer
        self.reader = reader
        _ = ve_ssl_set_app_data(ssl, Unmanaged.passUnretained(self).toOpaque())
        if configuration.role == .client { SSL_set_connect_state(ssl) } else { SSL_set_accept_state(ssl) }
    }

    deinit {
        _ = ve_ssl_set_app_data(ssl, nil)
        writer.detach()
        SSL_free(ssl)
    }

    /// Starts the handshake at `nowMs` (any clock, ms; the same one every later call uses): a
    /// client's first flight is then waiting in `drainDatagrams`; a server waits for it. The
    /// handshake's deadline runs on that clock; the retransmission timers are OpenSSL's own,
    /// on the wall clock (`nextWakeUpMs` converts what is left of them to the caller's clock),
    /// so under a virtual clock a lost flight is sent again only as real time passes.
    public func start(nowMs: Double) {
        guard state == .idle else { return }
        state = .handshaking
        deadlineMs = nowMs + Double(configuration.handshakeTimeoutMs)
        if configuration.role == .client { _ = advanceHandshake() }
    }

    /// Takes one DTLS datagram from the peer. Returns the change it caused, if any.
    @discardableResult
    public func receive(_ datagram: UnsafeRawBufferPointer, nowMs: Double) -> Outcome? {
        if state == .idle { start(nowMs: nowMs) }
        guard state == .handshaking || state == .connected, let base = datagram.baseAddress, !datagram.isEmpty,
              datagram.count <= Int(Int32.max)
        else { return nil }
        OpenSSLErrors.clear()
        _ = BIO_write(reader, base, Int32(datagram.count))
        if state == .handshaking {
            if nowMs >= deadlineMs { return fail(.handshakeTimedOut(milliseconds: configuration.handshakeTimeoutMs)) }
            return advanceHandshake()
        }
        return readAfterHandshake()
    }

    /// Sends a lost flight again when its timer ran out, and fails the handshake past its
    /// deadline. Call it at `nextWakeUpMs` (or more often).
    @discardableResult
    public func poll(nowMs: Double) -> Outcome? {
        guard state == .handshaking else { return nil }
        if nowMs >= deadlineMs { return fail(.handshakeTimedOut(milliseconds: configuration.handshakeTimeoutMs)) }
        OpenSSLErrors.clear()
        if ve_dtls_handle_timeout(ssl) < 0 {
            return fail(.handshakeFailed(reason: OpenSSLErrors.drain(fallback: "retransmission failed")))
        }
        return nil
    }

    /// When `poll` has work next, on the clock of `nowMs`: the retransmission timer or the
    /// handshake's deadline, whichever is first; nil once the handshake is over.
    public func nextWakeUpMs(nowMs: Double) -> Double? {
        guard state == .handshaking else { return nil }
        var microseconds: Int64 = 0
        guard ve_dtls_get_timeout(ssl, &microseconds) == 1 else { return deadlineMs }
        return min(deadlineMs, nowMs + Double(microseconds) / 1_000)
    }

    /// Hands every datagram waiting to go to the peer to `send`, oldest first.
    public func drainDatagrams(_ send: ([UInt8]) -> Void) { writer.drain(send) }

    /// Ends the association: a close_notify goes out (`drainDatagrams`) if it was connected.
    public func close() {
        switch state {
        case .connected:
            OpenSSLErrors.clear()
            _ = SSL_shutdown(ssl)
            state = .closed
        case .idle, .handshaking:
            state = .closed
        case .failed, .closed:
            break
        }
    }

    /// One step of the handshake with what has arrived.
    private func advanceHandshake() -> Outcome? {
        let result = SSL_do_handshake(ssl)
        if result == 1 { return finishHandshake() }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return nil
        default:
            if let mismatch { return fail(mismatch) }
            return fail(.handshakeFailed(reason: OpenSSLErrors.drain(fallback: "the handshake stopped (SSL_get_error \(SSL_get_error(ssl, result)))")))
        }
    }

    /// Checks the peer's certificate once more, then exports the keys.
    private func finishHandshake() -> Outcome? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return fail(.fingerprintMismatch(expected: configuration.remoteFingerprints, presented: nil)) }
        defer { X509_free(certificate) }
        if let mismatch = Self.check(certificate, against: configuration.remoteFingerprints) { return fail(mismatch) }
        guard let selected = SSL_get_selected_srtp_profile(ssl), let profile = SRTPProfile(dtlsProfileIdentifier: UInt16(truncatingIfNeeded: selected.pointee.id)),
              configuration.profiles.contains(profile)
        else { return fail(.noCommonSRTPProfile) }
        var exported = [UInt8](repeating: 0, count: profile.dtlsExportLength)
        defer { for index in exported.indices { exported[index] = 0 } }
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &exported, exported.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            return fail(.handshakeFailed(reason: OpenSSLErrors.drain(fallback: "SSL_export_keying_material failed")))
        }
        let keys: DTLSSRTPKeys
        do throws(SRTPError) {
            let (sending, receiving) = try SRTPKeyingMaterial.dtlsKeys(exported: exported, profile: profile, role: configuration.role)
            let presented = (try? DTLSCertificate.fingerprint(of: certificate, using: .sha256)) ?? configuration.remoteFingerprints[0]
            keys = DTLSSRTPKeys(profile: profile, sending: sending, receiving: receiving, peerFingerprint: presented)
        } catch {
            return fail(.keys(error))
        }
        self.keys = keys
        state = .connected
        return .connected(keys)
    }

    /// After the handshake: lets OpenSSL answer a retransmitted flight and notice an alert.
    private func readAfterHandshake() -> Outcome? {
        var buffer = [UInt8](repeating: 0, count: 2_048)
        while true {
            let result = SSL_read(ssl, &buffer, Int32(buffer.count))
            // Application data has no use here (a data channel is not ours): read and dropped.
            if result > 0 { continue }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return nil
            case SSL_ERROR_ZERO_RETURN:
                state = .closed
                return .closed
            default:
                return fail(.closedByPeer(reason: OpenSSLErrors.drain(fallback: "a fatal alert")))
            }
        }
    }

    private func fail(_ error: DTLSError) -> Outcome {
        state = .failed(error)
        keys = nil
        return .failed(error)
    }

    /// Nil when `certificate` hashes to one of `expected`, else the mismatch to report.
    fileprivate static func check(_ certificate: OpaquePointer, against expected: [CertificateFingerprint]) -> DTLSError? {
        for fingerprint in expected {
            if let digest = try? DTLSCertificate.fingerprint(of: certificate, using: fingerprint.hashFunction), digest == fingerprint { return nil }
        }
        let presented = expected.first.flatMap { try? DTLSCertificate.fingerprint(of: certificate, using: $0.hashFunction) }
        return .fingerprintMismatch(expected: expected, presented: presented)
    }

    /// The association an `SSL` belongs to, from its app data.
    fileprivate static func owning(_ ssl: OpaquePointer?) -> DTLSAssociation? {
        guard let ssl, let pointer = ve_ssl_get_app_data(ssl) else { return nil }
        return Unmanaged<DTLSAssociation>.fromOpaque(pointer).takeUnretainedValue()
    }

    private static func setupFailure(_ function: String) -> DTLSError {
        .setupFailed(function: function, reason: OpenSSLErrors.drain(fallback: "no reason given"))
    }
}

/// OpenSSL's certificate check, replaced: the peer's certificate is self-signed and known only
/// by its SDP fingerprint, so the leaf must match that and nothing else is asked of the chain.
private func verifyPeer(_ preverified: Int32, _ store: OpaquePointer?) -> Int32 {
    guard let store else { return 0 }
    // Only the peer's own certificate (depth 0) is judged; a chain above it has no say.
    guard X509_STORE_CTX_get_error_depth(store) == 0 else { return 1 }
    guard let ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx()),
          let association = DTLSAssociation.owning(OpaquePointer(ssl)),
          let certificate = X509_STORE_CTX_get_current_cert(store)
    else { return 0 }
    if let mismatch = DTLSAssociation.check(certificate, against: association.configuration.remoteFingerprints) {
        association.mismatch = mismatch
        return 0
    }
    return 1
}

/// The retransmission timer: the configured first timeout, doubling up to the configured most.
private func retransmissionTimeout(_ ssl: OpaquePointer?, _ previousMicroseconds: UInt32) -> UInt32 {
    let configuration = DTLSAssociation.owning(ssl)?.configuration
    let initial = UInt32(configuration?.initialRetransmissionMs ?? 1_000) * 1_000
    let maximum = UInt32(configuration?.maximumRetransmissionMs ?? 60_000) * 1_000
    guard previousMicroseconds > 0 else { return initial }
    return min(maximum, previousMicroseconds.multipliedReportingOverflow(by: 2).overflow ? maximum : previousMicroseconds * 2)
}
