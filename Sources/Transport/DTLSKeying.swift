// SPDX-License-Identifier: Apache-2.0
/// How a call's DTLS-SRTP handshake runs: the certificate we present (its fingerprint in our
/// SDP) and the association's configuration (our role from `a=setup`, the peer's fingerprints
/// from its SDP, suites, timers).
public struct DTLSKeying: Sendable {
    /// Our certificate.
    public var certificate: DTLSCertificate
    /// The handshake's role, the peer's fingerprints, suites and timers.
    public var configuration: DTLSAssociation.Configuration

    /// A handshake presenting `certificate`, run as `configuration` says.
    public init(certificate: DTLSCertificate, configuration: DTLSAssociation.Configuration) {
        self.certificate = certificate
        self.configuration = configuration
    }
}
