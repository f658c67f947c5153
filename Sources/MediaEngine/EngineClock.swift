// SPDX-License-Identifier: Apache-2.0
import AudioDevices

/// The one clock of an engine's threads: CLOCK_MONOTONIC from the engine's creation, in ms.
/// The network thread stamps arrivals with it and the audio thread renders on it, so the
/// jitter buffer compares times of one clock.
struct EngineClock: Sendable {
    /// CLOCK_MONOTONIC at the origin, ns.
    let originNanoseconds: Int64

    /// A clock starting now.
    init() {
        originNanoseconds = MonotonicClock.nanoseconds
    }

    /// Now, in ms since the origin.
    var milliseconds: Double { Double(MonotonicClock.nanoseconds - originNanoseconds) / 1e6 }
}
