// SPDX-License-Identifier: Apache-2.0
internal import CSRTP

/// Why an SRTP operation failed.
///
/// Packet-level errors (`authenticationFailed`, `replay`, `olderThanReplayWindow`, `malformedPacket`,
/// `unknownMasterKeyIdentifier`, `encryptionFlagMismatch`) are expected on the network path:
/// count them and drop the packet. `keyLifetimeExpired` asks for a new key. The others
/// indicate a programming or configuration error.
public enum SRTPError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The packet's authentication tag did not verify (tampered, wrong key, or wrong rollover
    /// counter). libsrtp: `srtp_err_status_auth_fail`.
    case authenticationFailed
    /// The packet index was already received (or, on a resumed session, was before it).
    /// libsrtp: `srtp_err_status_replay_fail`.
    case replay
    /// The packet index is older than the replay window (`SRTPSession.defaultReplayWindowSize`:
    /// 1,024 packets, 20 s of 20 ms packets), so whether it was seen cannot be told: a packet that came that late, or a
    /// replay of an old one. libsrtp: `srtp_err_status_replay_old`.
    case olderThanReplayWindow
    /// The packet is too short or its header is inconsistent (CSRC count, extension length).
    case malformedPacket
    /// The packet's master key identifier (MKI) is not this session's: a packet keyed for
    /// another master key, or forged. libsrtp: `srtp_err_status_bad_mki`.
    case unknownMasterKeyIdentifier
    /// The SRTCP packet's E flag (encrypted or not) disagrees with this session's SRTCP
    /// policy, so libsrtp refused it before checking its tag: a forged or corrupted flag, or a
    /// peer that negotiated `UNENCRYPTED_SRTCP` differently. libsrtp:
    /// `srtp_err_status_cant_check` from `srtp_unprotect_rtcp`. (Under the AEAD suites the
    /// flag is authenticated data, and a flipped one is `.authenticationFailed`.)
    case encryptionFlagMismatch
    /// The master key has protected (outbound) or accepted (inbound) as many packets as its
    /// lifetime allows (`SRTPKeyingMaterial.lifetimePackets`, or libsrtp's own limit:
    /// `srtp_err_status_key_expired`): re-key.
    case keyLifetimeExpired
    /// A caller-supplied value is out of range; the string says which and why.
    case badParameter(String)
    /// The buffer lacks room: `protect` needs `SRTPSession.maximumTrailerLength` (RTP) or
    /// `SRTPSession.maximumRTCPTrailerLength` (RTCP) spare bytes after the packet, and
    /// `length` must not exceed the buffer.
    case bufferTooSmall
    /// libsrtp could not allocate memory.
    case allocationFailed
    /// `srtp_init` or session creation failed with the given libsrtp status code.
    case initializationFailed(status: Int32)
    /// Any other libsrtp status code, with the C function that returned it.
    case other(status: Int32, function: String)

    /// Maps a libsrtp status from a packet function to an error; nil for `srtp_err_status_ok`.
    init?(status: srtp_err_status_t, function: String) {
        switch status {
        case srtp_err_status_ok: return nil
        case srtp_err_status_auth_fail: self = .authenticationFailed
        case srtp_err_status_replay_fail: self = .replay
        case srtp_err_status_replay_old: self = .olderThanReplayWindow
        case srtp_err_status_bad_param, srtp_err_status_parse_err: self = .malformedPacket
        case srtp_err_status_bad_mki: self = .unknownMasterKeyIdentifier
        case srtp_err_status_key_expired: self = .keyLifetimeExpired
        case srtp_err_status_alloc_fail: self = .allocationFailed
        case srtp_err_status_init_fail: self = .initializationFailed(status: Int32(status.rawValue))
        default: self = .other(status: Int32(status.rawValue), function: function)
        }
    }

    /// A one-line explanation naming what failed and why.
    public var description: String {
        switch self {
        case .authenticationFailed: return "SRTP authentication failed"
        case .replay: return "SRTP replay detected (index already seen)"
        case .olderThanReplayWindow: return "SRTP packet older than the replay window (too late, or a replay)"
        case .malformedPacket: return "malformed (S)RTP(C) packet"
        case .unknownMasterKeyIdentifier: return "SRTP packet carries an unknown master key identifier (MKI)"
        case .encryptionFlagMismatch: return "SRTCP packet's E flag disagrees with the session's SRTCP encryption"
        case .keyLifetimeExpired: return "SRTP master key lifetime reached: a new key is needed"
        case .badParameter(let why): return "bad SRTP parameter: \(why)"
        case .bufferTooSmall: return "buffer too small for the SRTP trailer"
        case .allocationFailed: return "libsrtp allocation failed"
        case .initializationFailed(let status): return "libsrtp initialization failed (status \(status))"
        case .other(let status, let function): return "\(function) failed (libsrtp status \(status))"
        }
    }
}
