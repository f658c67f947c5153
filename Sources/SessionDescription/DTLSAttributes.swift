// SPDX-License-Identifier: Apache-2.0
import SRTP

/// The DTLS-SRTP attributes of a description, at session or media level: `a=fingerprint`
/// (RFC 8122) and `a=setup` (RFC 4145, RFC 5763). `SessionDescription.audioDTLS` says which
/// apply to the audio (the media level's, else the session's).
///
/// Nothing here is secret: a fingerprint is a hash of a public certificate.
public struct DTLSAttributes: Sendable, Equatable, CustomStringConvertible {
    /// The `a=fingerprint` lines with a hash function we support, in the order given. The
    /// certificate the peer presents must match one of them (RFC 8122 §5: any may).
    public var fingerprints: [CertificateFingerprint]
    /// The hash function names of `a=fingerprint` lines we skipped because we do not support
    /// them (e.g. `md5`), as written. Like `AudioDescription.unsupportedSuites`: not written
    /// back, there to say why nothing was usable.
    public var unsupportedFingerprintHashes: [String]
    /// `a=setup`, nil when absent (which RFC 4145 §4.1 reads as `active` in an offer,
    /// `passive` in an answer: `DTLSSetup.absentInOffer`, `absentInAnswer`).
    public var setup: DTLSSetup?

    /// Attributes from their parts; by default none.
    public init(fingerprints: [CertificateFingerprint] = [], unsupportedFingerprintHashes: [String] = [], setup: DTLSSetup? = nil) {
        self.fingerprints = fingerprints
        self.unsupportedFingerprintHashes = unsupportedFingerprintHashes
        self.setup = setup
    }

    /// Whether there is no DTLS attribute at all.
    public var isEmpty: Bool { fingerprints.isEmpty && unsupportedFingerprintHashes.isEmpty && setup == nil }

    /// The attribute lines, without line ends: fingerprints first, then the setup.
    var lines: [String] {
        fingerprints.map { "a=fingerprint:\($0.sdpValue)" } + (setup.map { ["a=setup:\($0.rawValue)"] } ?? [])
    }

    /// The setup and the fingerprints (a fingerprint is public).
    public var description: String {
        "setup \(setup?.rawValue ?? "absent"), fingerprints [\(fingerprints.map(\.sdpValue).joined(separator: ", "))]"
    }
}
