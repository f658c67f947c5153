// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// CLOCK_REALTIME: the wall clock, for what must name the time of day (RTCP's NTP
/// timestamps), never for pacing or intervals (`MonotonicClock` does those). Allocation-free.
public enum WallClock {
    /// Now, in seconds since 1970-01-01 00:00 UTC.
    public static var secondsSince1970: Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
