// SPDX-License-Identifier: Apache-2.0
import SRTP

extension SDESCryptoAttribute {
    /// The session parameters of RFC 4568 §6.3 that turn SRTP's protection off:
    /// `UNENCRYPTED_SRTP`, `UNENCRYPTED_SRTCP` and `UNAUTHENTICATED_SRTP`.
    public static let unprotectingSessionParameters: Set<String> = ["UNENCRYPTED_SRTP", "UNENCRYPTED_SRTCP", "UNAUTHENTICATED_SRTP"]

    /// The first session parameter of this line that asks for unencrypted or unauthenticated
    /// media, or nil. Media without SRTP's protection is never what a caller of this module
    /// wants (and `SRTPSession` would not run it as the peer expects): parsing refuses such a
    /// line (`SessionDescriptionError.unprotectedCrypto`), and an answer never picks one.
    public var unprotectingParameter: String? {
        sessionParameters.first { Self.unprotectingSessionParameters.contains($0.uppercased()) }
    }
}
