// SPDX-License-Identifier: Apache-2.0
// The SRTP protection profiles DTLS-SRTP negotiates in its use_srtp extension (RFC 5764 §4.1.2,
// RFC 7714 §14.2) and the keys it derives from the handshake (RFC 5764 §4.2).

extension SRTPProfile {
    /// The profile's name in OpenSSL's `SSL_set_tlsext_use_srtp` list, or nil when DTLS-SRTP
    /// registers no profile for the suite (the AES-256 counter-mode suites).
    public var dtlsProfileName: String? {
        switch self {
        case .aesCM128HmacSha1_80: return "SRTP_AES128_CM_SHA1_80"
        case .aesCM128HmacSha1_32: return "SRTP_AES128_CM_SHA1_32"
        case .aeadAES128GCM: return "SRTP_AEAD_AES_128_GCM"
        case .aeadAES256GCM: return "SRTP_AEAD_AES_256_GCM"
        case .aes256CMHmacSha1_80, .aes256CMHmacSha1_32: return nil
        }
    }

    /// The profile's two-byte identifier in the use_srtp extension (IANA's "DTLS-SRTP
    /// Protection Profiles"), or nil as for `dtlsProfileName`.
    public var dtlsProfileIdentifier: UInt16? {
        switch self {
        case .aesCM128HmacSha1_80: return 0x0001
        case .aesCM128HmacSha1_32: return 0x0002
        case .aeadAES128GCM: return 0x0007
        case .aeadAES256GCM: return 0x0008
        case .aes256CMHmacSha1_80, .aes256CMHmacSha1_32: return nil
        }
    }

    /// The profile with this use_srtp identifier, or nil when we support none.
    public init?(dtlsProfileIdentifier: UInt16) {
        guard let profile = Self.allCases.first(where: { $0.dtlsProfileIdentifier == dtlsProfileIdentifier }) else { return nil }
        self = profile
    }

    /// The suites a DTLS-SRTP handshake offers, in our order of preference: GCM first (one pass,
    /// a 16-byte tag that also covers the header), then the one every endpoint has (RFC 8827
    /// requires AES_CM_128_HMAC_SHA1_80).
    public static let dtlsPreference: [SRTPProfile] = [.aeadAES128GCM, .aesCM128HmacSha1_80]

    /// Bytes of keying material to export from a DTLS handshake for this profile: both
    /// directions' master keys and salts.
    public var dtlsExportLength: Int { 2 * keyingMaterialLength }
}

/// Which end of the DTLS handshake this endpoint is (RFC 5763 §5: the `a=setup:active` side is
/// the client). It decides which half of the exported keys each side sends with.
public enum DTLSRole: String, Sendable, Hashable {
    /// Sends the ClientHello (`a=setup:active`); sends SRTP with the client write key.
    case client
    /// Answers the ClientHello (`a=setup:passive`); sends SRTP with the server write key.
    case server
}

extension SRTPKeyingMaterial {
    /// The two directions' keys from a DTLS-SRTP handshake's exported material (RFC 5764 §4.2:
    /// `client key | server key | client salt | server salt`, exported with the label
    /// "EXTRACTOR-dtls_srtp"), as `role` sends and receives with them.
    ///
    /// - Throws: `SRTPError.badParameter` unless `exported` is `profile.dtlsExportLength` bytes
    ///   and the profile has a DTLS-SRTP identifier.
    public static func dtlsKeys(exported: [UInt8], profile: SRTPProfile, role: DTLSRole) throws(SRTPError)
        -> (sending: SRTPKeyingMaterial, receiving: SRTPKeyingMaterial)
    {
        guard profile.dtlsProfileIdentifier != nil else {
            throw .badParameter("\(profile.sdesName) has no DTLS-SRTP protection profile")
        }
        guard exported.count == profile.dtlsExportLength else {
            throw .badParameter("DTLS-SRTP \(profile.sdesName) needs \(profile.dtlsExportLength) exported bytes, got \(exported.count)")
        }
        let keyLength = profile.masterKeyLength
        let saltLength = profile.masterSaltLength
        let clientKey = Array(exported[0..<keyLength])
        let serverKey = Array(exported[keyLength..<(2 * keyLength)])
        let clientSalt = Array(exported[(2 * keyLength)..<(2 * keyLength + saltLength)])
        let serverSalt = Array(exported[(2 * keyLength + saltLength)...])
        let client = try SRTPKeyingMaterial(profile: profile, key: clientKey, salt: clientSalt)
        let server = try SRTPKeyingMaterial(profile: profile, key: serverKey, salt: serverSalt)
        return role == .client ? (client, server) : (server, client)
    }
}
