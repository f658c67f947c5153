// SPDX-License-Identifier: Apache-2.0
/// Why a telephone-event payload or key press could not be built or decoded.
public enum TelephoneEventError: Error, Sendable, Hashable {
    /// Fewer than 4 payload bytes (or a buffer smaller than 4 bytes to write into).
    case tooShort(length: Int)
    /// An event code outside the DTMF range 0–15.
    case unsupportedEvent(UInt8)
    /// A volume outside 0–63 (−dBm0).
    case invalidVolume(Int)
    /// A duration that does not fit the 16-bit field or is not positive.
    case invalidDuration(Int)
    /// A packet time that is not positive.
    case invalidPacketTime(Int)
    /// A clock rate that is not positive or above `TelephoneEventKeyPress.maximumClockRate`.
    case invalidClockRate(Int)
}
