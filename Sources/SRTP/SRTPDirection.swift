// SPDX-License-Identifier: Apache-2.0
/// Which way an `SRTPSession` carries packets.
public enum SRTPDirection: Sendable, Equatable {
    /// Packets we send: `protect` / `protectRTCP` (libsrtp `ssrc_any_outbound`).
    case outbound
    /// Packets we receive: `unprotect` / `unprotectRTCP` (libsrtp `ssrc_any_inbound`).
    case inbound
}
