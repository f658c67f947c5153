internal import Glibc

/// CLOCK_MONOTONIC in nanoseconds, the clock ALSA timestamps use. Allocation-free.
/// `package`: the virtual devices in AudioDevicesTesting pace themselves on the same clock.
package enum MonotonicClock {
    package static var nanoseconds: Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
