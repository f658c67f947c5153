// SPDX-License-Identifier: Apache-2.0
internal import CSRTP

/// Process-wide libsrtp initialization.
///
/// `srtp_init()` runs exactly once, lazily, through the thread-safe once-initializer of a
/// `static let`; there is no other global state.
enum SRTPLibrary {
    /// The raw status `srtp_init()` returned (0 = ok).
    private static let initializationStatus: UInt32 = srtp_init().rawValue

    /// Initializes libsrtp on first call; throws if that failed.
    static func ensureInitialized() throws(SRTPError) {
        let status = initializationStatus
        if status != srtp_err_status_ok.rawValue {
            throw .initializationFailed(status: Int32(status))
        }
    }

    /// libsrtp's version string, e.g. "libsrtp2 2.5.0".
    static var version: String { String(cString: srtp_get_version_string()) }
}
