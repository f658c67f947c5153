// SPDX-License-Identifier: Apache-2.0
internal import CSRTP

/// The internal owner of one libsrtp session (`srtp_t`): creates it in `init`, frees it in
/// `deinit`, and turns `srtp_err_status_t` into `SRTPError`. Not thread-safe; `SRTPSession`
/// serializes access.
final class SRTPContext {
    /// The libsrtp session handle. Valid for the lifetime of this object.
    let handle: OpaquePointer

    /// Creates a libsrtp session with one wildcard ("template") policy for `direction`: libsrtp
    /// clones a per-SSRC stream from it the first time it sees each SSRC.
    init(direction: SRTPDirection, keyingMaterial: SRTPKeyingMaterial, windowSize: Int) throws(SRTPError) {
        try SRTPLibrary.ensureInitialized()
        let ssrcType = direction == .outbound ? ssrc_any_outbound : ssrc_any_inbound
        var created: srtp_t? = nil
        let status = Self.withPolicy(keyingMaterial, ssrc: srtp_ssrc_t(type: ssrcType, value: 0), windowSize: windowSize) {
            srtp_create(&created, $0)
        }
        guard status == srtp_err_status_ok, let created else {
            switch status {
            case srtp_err_status_alloc_fail: throw .allocationFailed
            case srtp_err_status_bad_param: throw .badParameter("srtp_create rejected the policy for \(keyingMaterial.profile.sdesName)")
            default: throw .initializationFailed(status: Int32(status.rawValue))
            }
        }
        handle = created
    }

    deinit {
        srtp_dealloc(handle)
    }

    /// Adds an explicit stream for `ssrc` (used when resuming a stream's rollover counter).
    func addStream(ssrc: UInt32, keyingMaterial: SRTPKeyingMaterial, windowSize: Int) throws(SRTPError) {
        let status = Self.withPolicy(keyingMaterial, ssrc: srtp_ssrc_t(type: ssrc_specific, value: ssrc), windowSize: windowSize) {
            srtp_add_stream(handle, $0)
        }
        if let error = SRTPError(status: status, function: "srtp_add_stream") { throw error }
    }

    /// Sets the rollover counter libsrtp uses for the next packet of `ssrc` (its
    /// "pending ROC"; the stream's replay database is re-based on that packet).
    func setRolloverCounter(_ roc: UInt32, ssrc: UInt32) throws(SRTPError) {
        let status = srtp_set_stream_roc(handle, ssrc, roc)
        if let error = SRTPError(status: status, function: "srtp_set_stream_roc") { throw error }
    }

    /// The rollover counter of the stream for `ssrc`, or nil if libsrtp has no such stream.
    func rolloverCounter(ssrc: UInt32) -> UInt32? {
        var roc: UInt32 = 0
        return srtp_get_stream_roc(handle, ssrc, &roc) == srtp_err_status_ok ? roc : nil
    }

    /// Builds a policy for `keyingMaterial` and passes it to `body`. The policy points at the
    /// keying material's own storage, so no copy of the key is made here; libsrtp derives and
    /// keeps its session keys, and zeroes them in `srtp_dealloc`.
    private static func withPolicy(
        _ keyingMaterial: SRTPKeyingMaterial, ssrc: srtp_ssrc_t, windowSize: Int,
        _ body: (UnsafePointer<srtp_policy_t>) -> srtp_err_status_t
    ) -> srtp_err_status_t {
        var policy = srtp_policy_t()
        keyingMaterial.profile.apply(rtp: &policy.rtp, rtcp: &policy.rtcp)
        policy.ssrc = ssrc
        policy.window_size = UInt(windowSize)
        policy.allow_repeat_tx = 0
        policy.next = nil
        return keyingMaterial.withUnsafeKeyAndSalt { keyBytes in
            // libsrtp takes `unsigned char *` but only reads the master key (and MKI).
            let key = UnsafeMutablePointer(mutating: keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            guard var identifier = keyingMaterial.masterKeyIdentifier else {
                policy.key = key
                return withUnsafePointer(to: &policy) { body($0) }
            }
            // With an MKI, the key goes in libsrtp 2.x's master-key list (one entry, index 0)
            // instead of `policy.key`; libsrtp copies key and MKI into the stream.
            return identifier.withUnsafeMutableBufferPointer { mki in
                var master = srtp_master_key_t(key: key, mki_id: mki.baseAddress, mki_size: UInt32(mki.count))
                return withUnsafeMutablePointer(to: &master) { masterPointer in
                    var list: UnsafeMutablePointer<srtp_master_key_t>? = masterPointer
                    return withUnsafeMutablePointer(to: &list) { listPointer in
                        policy.key = nil
                        policy.keys = listPointer
                        policy.num_master_keys = 1
                        return withUnsafePointer(to: &policy) { body($0) }
                    }
                }
            }
        }
    }
}
