// SPDX-License-Identifier: Apache-2.0
/// How a device without hardware keeps time.
public enum DevicePacing: Sendable, Hashable {
    /// One period per period duration of wall-clock time, like a sound card.
    case realtime
    /// Every period is ready at once: an hour of audio in seconds (tests, batch processing).
    case asFastAsPossible
    /// A device-wide virtual clock: `poll` never sleeps and never times out, it moves the clock
    /// to the earliest deadline of the started PCMs and makes ready those due then. Capture
    /// and playback interleave exactly as on a sound card (with their clock errors), as fast as
    /// the CPU allows, deterministically; timestamps read the virtual clock.
    case virtualClock
}
