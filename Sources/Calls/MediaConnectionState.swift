// SPDX-License-Identifier: Apache-2.0
/// Where a call's media connection stands, as its engine tells it: ICE finding a path and the
/// DTLS handshake keying the call (a call keyed by SDES on a known address has nothing to wait
/// for, and stays `.unknown`).
public enum MediaConnectionState: String, Sendable, Hashable {
    /// Nothing told yet (no media, or media that needs no connecting).
    case unknown
    /// ICE is checking candidate pairs.
    case connecting
    /// Keyed and flowing (DTLS-SRTP connected).
    case connected
    /// ICE found no path or lost it (consent), or the DTLS handshake failed: the call ends
    /// with `CallEndedReason.failed`.
    case failed
    /// The peer closed the DTLS association (its media hung up).
    case closed
}
