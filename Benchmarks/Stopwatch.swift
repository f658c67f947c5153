// SPDX-License-Identifier: Apache-2.0
import Dispatch

/// Elapsed time of a piece of work, on the monotonic clock.
enum Stopwatch {
    /// Runs `body` and returns the elapsed nanoseconds.
    static func time(_ body: () -> Void) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        body()
        return Double(DispatchTime.now().uptimeNanoseconds - start)
    }
}
