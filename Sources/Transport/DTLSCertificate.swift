// SPDX-License-Identifier: Apache-2.0
internal import COpenSSL
internal import COpenSSLShims
public import SRTP

/// A self-signed ECDSA P-256 certificate and its private key, for DTLS-SRTP: the peer knows it
/// only by its fingerprint in our SDP (`fingerprint`, RFC 5763 §5), so nothing else about it
/// matters but that it is fresh and ours. Make one per process (as browsers do) or per call.
///
/// Immutable once made, so one certificate serves many associations on any thread.
public final class DTLSCertificate: @unchecked Sendable {
    /// The certificate's SHA-256 fingerprint, for `a=fingerprint`.
    public let fingerprint: CertificateFingerprint
    let key: OpaquePointer
    let certificate: OpaquePointer

    /// A new key pair on P-256 and a certificate for it, valid from a day ago (clocks differ)
    /// for `validityDays`, signed with SHA-256, its subject `commonName`.
    /// - Throws: `DTLSError.badParameter` for a validity outside 1…3650 days,
    ///   `.setupFailed` when OpenSSL cannot make the key or certificate.
    public init(commonName: String = "VoiceEngine", validityDays: Int = 30) throws(DTLSError) {
        guard (1...3_650).contains(validityDays) else {
            throw .badParameter("certificate validity must be 1…3650 days, got \(validityDays)")
        }
        OpenSSLErrors.clear()
        guard let key = ve_evp_ec_generate("P-256") else { throw Self.failure("EVP_EC_gen") }
        guard let certificate = X509_new() else {
            EVP_PKEY_free(key)
            throw Self.failure("X509_new")
        }
        do throws(DTLSError) {
            try Self.fill(certificate, key: key, commonName: commonName, validityDays: validityDays)
            self.fingerprint = try Self.fingerprint(of: certificate, using: .sha256)
        } catch {
            X509_free(certificate)
            EVP_PKEY_free(key)
            throw error
        }
        self.key = key
        self.certificate = certificate
    }

    deinit {
        X509_free(certificate)
        EVP_PKEY_free(key)
    }

    private static func fill(_ certificate: OpaquePointer, key: OpaquePointer, commonName: String, validityDays: Int) throws(DTLSError) {
        guard X509_set_version(certificate, 2) == 1 else { throw failure("X509_set_version") }
        // A random 63-bit serial: two certificates of ours never share one (RFC 5280 §4.1.2.2).
        guard ASN1_INTEGER_set_int64(X509_get_serialNumber(certificate), Int64.random(in: 1...Int64.max)) == 1 else {
            throw failure("ASN1_INTEGER_set_int64")
        }
        guard X509_gmtime_adj(X509_getm_notBefore(certificate), -86_400) != nil,
              X509_gmtime_adj(X509_getm_notAfter(certificate), validityDays * 86_400) != nil
        else { throw failure("X509_gmtime_adj") }
        guard X509_set_pubkey(certificate, key) == 1 else { throw failure("X509_set_pubkey") }
        guard let name = X509_get_subject_name(certificate),
              X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, commonName, -1, -1, 0) == 1,
              X509_set_issuer_name(certificate, name) == 1
        else { throw failure("X509_NAME_add_entry_by_txt") }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw failure("X509_sign") }
    }

    /// The digest of `certificate`'s DER encoding under `function`.
    static func fingerprint(of certificate: OpaquePointer, using function: CertificateFingerprint.HashFunction) throws(DTLSError)
        -> CertificateFingerprint
    {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard X509_digest(certificate, messageDigest(function), &digest, &length) == 1,
              let fingerprint = CertificateFingerprint(hashFunction: function, digest: Array(digest.prefix(Int(length))))
        else { throw failure("X509_digest") }
        return fingerprint
    }

    private static func messageDigest(_ function: CertificateFingerprint.HashFunction) -> OpaquePointer? {
        switch function {
        case .sha1: return EVP_sha1()
        case .sha224: return EVP_sha224()
        case .sha256: return EVP_sha256()
        case .sha384: return EVP_sha384()
        case .sha512: return EVP_sha512()
        }
    }

    private static func failure(_ function: String) -> DTLSError {
        .setupFailed(function: function, reason: OpenSSLErrors.drain(fallback: "no reason given"))
    }
}
