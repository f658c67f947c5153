// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import AudioDevices

/// How the doubles that really wait (`ScriptedALSA` with a poll interval, `VirtualAudioDevice`
/// in real time) wait: on the stream's stop waker, so `ALSAStream.stop()` ends the wait at once.
enum StopWakerWait {
    /// Sleeps until CLOCK_MONOTONIC reads `deadline` nanoseconds or `waker` becomes readable,
    /// whichever comes first; returns whether the waker ended it. `poll` waits the whole
    /// milliseconds, `clock_nanosleep` the rest, so the deadline keeps its nanoseconds.
    static func sleep(untilNanoseconds deadline: Int64, waker: Int32) -> Bool {
        var descriptor = pollfd(fd: waker, events: Int16(POLLIN), revents: 0)
        while true {
            let remaining = deadline - MonotonicClock.nanoseconds
            guard remaining >= 1_000_000 else { break }
            let milliseconds = Int32(min(remaining / 1_000_000, Int64(Int32.max)))
            guard Glibc.poll(&descriptor, 1, milliseconds) > 0 else { continue }
            if descriptor.revents & Int16(POLLIN) != 0 { return true }
            descriptor.fd = -1  // not a descriptor (POLLNVAL): sleep without it rather than spin
        }
        MonotonicClock.sleep(untilNanoseconds: deadline)
        return false
    }
}
