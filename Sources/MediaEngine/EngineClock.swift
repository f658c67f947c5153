// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Synchronization

/// The one clock of an engine's threads: CLOCK_MONOTONIC from the engine's creation, in ms.
/// The network thread stamps arrivals with it and the audio thread renders on it, so the
/// jitter buffer compares times of one clock. A test that steps an audio cycle by hand gives
/// it a `SteppedTime` instead, so that the jitter buffer sees the periods it is stepped by and
/// not how fast the machine ran them.
struct EngineClock: Sendable {
    /// CLOCK_MONOTONIC at the origin, ns.
    let originNanoseconds: Int64
    /// Time moved by hand, when set.
    let stepped: SteppedTime?

    /// A clock starting now.
    init() {
        originNanoseconds = MonotonicClock.nanoseconds
        stepped = nil
    }

    /// A clock that reads `stepped`.
    init(stepped: SteppedTime) {
        originNanoseconds = 0
        self.stepped = stepped
    }

    /// Now, in ms since the origin.
    var milliseconds: Double {
        if let stepped { return Double(stepped.nanoseconds.load(ordering: .relaxed)) / 1e6 }
        return Double(MonotonicClock.nanoseconds - originNanoseconds) / 1e6
    }
}

/// Time a test moves by hand (`EngineClock(stepped:)`), in ns.
final class SteppedTime: Sendable {
    let nanoseconds = Atomic<Int64>(0)

    /// Moves time on by `milliseconds`.
    func advance(milliseconds: Int) { nanoseconds.add(Int64(milliseconds) * 1_000_000, ordering: .relaxed) }
}
