// SPDX-License-Identifier: Apache-2.0
internal import CSRTP

/// An SRTP crypto suite: cipher, key sizes and authentication tag lengths (RFC 3711, RFC 4568,
/// RFC 6188, RFC 7714).
///
/// Every case is supported by Debian's libsrtp2 2.5 built against NSS (checked by the tests,
/// which round-trip each profile).
public enum SRTPProfile: String, CaseIterable, Sendable {
    /// AES-128 counter mode with an 80-bit HMAC-SHA1 tag (RFC 4568 `AES_CM_128_HMAC_SHA1_80`).
    case aesCM128HmacSha1_80
    /// AES-128 counter mode with a 32-bit HMAC-SHA1 RTP tag (80-bit on SRTCP), RFC 4568
    /// `AES_CM_128_HMAC_SHA1_32`.
    case aesCM128HmacSha1_32
    /// AES-256 counter mode with an 80-bit HMAC-SHA1 tag (RFC 6188 `AES_256_CM_HMAC_SHA1_80`).
    case aes256CMHmacSha1_80
    /// AES-256 counter mode with a 32-bit HMAC-SHA1 RTP tag (80-bit on SRTCP), RFC 6188
    /// `AES_256_CM_HMAC_SHA1_32`.
    case aes256CMHmacSha1_32
    /// AES-128 GCM with a 128-bit tag (RFC 7714 `AEAD_AES_128_GCM`).
    case aeadAES128GCM
    /// AES-256 GCM with a 128-bit tag (RFC 7714 `AEAD_AES_256_GCM`).
    case aeadAES256GCM

    /// Length of the master key in bytes (16 or 32).
    public var masterKeyLength: Int {
        switch self {
        case .aesCM128HmacSha1_80, .aesCM128HmacSha1_32, .aeadAES128GCM: return 16
        case .aes256CMHmacSha1_80, .aes256CMHmacSha1_32, .aeadAES256GCM: return 32
        }
    }

    /// Length of the master salt in bytes (14 for AES-CM, 12 for AEAD GCM).
    public var masterSaltLength: Int {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: return 12
        default: return 14
        }
    }

    /// Length of the master key followed by the master salt, as carried in SDES `inline:` keys.
    public var keyingMaterialLength: Int { masterKeyLength + masterSaltLength }

    /// The crypto-suite name used in SDP `a=crypto` lines (RFC 4568 §6.2, RFC 6188, RFC 7714).
    public var sdesName: String {
        switch self {
        case .aesCM128HmacSha1_80: return "AES_CM_128_HMAC_SHA1_80"
        case .aesCM128HmacSha1_32: return "AES_CM_128_HMAC_SHA1_32"
        case .aes256CMHmacSha1_80: return "AES_256_CM_HMAC_SHA1_80"
        case .aes256CMHmacSha1_32: return "AES_256_CM_HMAC_SHA1_32"
        case .aeadAES128GCM: return "AEAD_AES_128_GCM"
        case .aeadAES256GCM: return "AEAD_AES_256_GCM"
        }
    }

    /// The profile with the given SDES crypto-suite name (exact, case-sensitive as RFC 4568
    /// registers them), or nil when unknown.
    public init?(sdesName: String) {
        guard let profile = Self.allCases.first(where: { $0.sdesName == sdesName }) else { return nil }
        self = profile
    }

    /// Bytes of authentication tag appended to each SRTP packet.
    public var rtpAuthTagLength: Int {
        switch self {
        case .aesCM128HmacSha1_80, .aes256CMHmacSha1_80: return 10
        case .aesCM128HmacSha1_32, .aes256CMHmacSha1_32: return 4
        case .aeadAES128GCM, .aeadAES256GCM: return 16
        }
    }

    /// Bytes of authentication tag appended to each SRTCP packet (after the 4-byte E/index
    /// word). The `_32` suites still use an 80-bit tag on SRTCP (RFC 4568 §6.2).
    public var rtcpAuthTagLength: Int {
        switch self {
        case .aeadAES128GCM, .aeadAES256GCM: return 16
        default: return 10
        }
    }

    /// Fills libsrtp's RTP and RTCP crypto policies for this profile.
    func apply(rtp: inout srtp_crypto_policy_t, rtcp: inout srtp_crypto_policy_t) {
        switch self {
        case .aesCM128HmacSha1_80:
            srtp_crypto_policy_set_rtp_default(&rtp)
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aesCM128HmacSha1_32:
            // RFC 4568: the _32 suites keep the 80-bit tag for SRTCP.
            srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_rtcp_default(&rtcp)
        case .aes256CMHmacSha1_80:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aes256CMHmacSha1_32:
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32(&rtp)
            srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80(&rtcp)
        case .aeadAES128GCM:
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_128_16_auth(&rtcp)
        case .aeadAES256GCM:
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtp)
            srtp_crypto_policy_set_aes_gcm_256_16_auth(&rtcp)
        }
    }
}
