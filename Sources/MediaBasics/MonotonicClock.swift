// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// CLOCK_MONOTONIC, the clock ALSA timestamps use and the one real-time pacing follows: the
/// project's one monotonic clock. Allocation-free.
public enum MonotonicClock {
    /// Now, in nanoseconds since an arbitrary origin (boot).
    public static var nanoseconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Now, in milliseconds since the same origin.
    public static var milliseconds: Double { Double(nanoseconds) / 1e6 }

    /// Sleeps until the clock reads `deadline` nanoseconds (absolute, so a paced loop does
    /// not drift by the time each step takes); returns at once when it has passed.
    public static func sleep(untilNanoseconds deadline: Int64) {
        guard deadline > 0 else { return }
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
