// SPDX-License-Identifier: Apache-2.0
@testable import MediaEngine
import Synchronization
import TestSupport

/// Counts the heap allocations of each of an engine's audio cycles, on the audio thread
/// itself, once `arm()` is called (from the test's thread): the worst cycle and how many were
/// measured. It reads nothing else on the audio thread: the probe itself must not allocate.
final class CycleAllocationProbe: Sendable {
    private final class Counters: Sendable {
        let worst = Atomic<Int>(0), measured = Atomic<Int>(0), last = Atomic<Int>(-1), armed = Atomic<Bool>(false)
    }

    private let counters = Counters()

    /// A probe observing `engine`'s audio cycles (until `detach`).
    init(_ engine: VoiceEngine) {
        let counters = self.counters
        engine.setCycleObserver {
            let now = AllocationCounter.current
            let previous = counters.last.exchange(now, ordering: .relaxed)
            guard previous >= 0, counters.armed.load(ordering: .relaxed) else { return }
            counters.measured.add(1, ordering: .relaxed)
            if now - previous > counters.worst.load(ordering: .relaxed) { counters.worst.store(now - previous, ordering: .relaxed) }
        }
    }

    /// Starts measuring from the next cycle.
    func arm() { counters.armed.store(true, ordering: .relaxed) }
    /// The most allocations one measured cycle made.
    var worst: Int { counters.worst.load(ordering: .relaxed) }
    /// The cycles measured.
    var measured: Int { counters.measured.load(ordering: .relaxed) }
    /// Stops observing `engine`.
    static func detach(_ engine: VoiceEngine) { engine.setCycleObserver(nil) }
}
