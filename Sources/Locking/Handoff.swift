// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// One value handed from a control thread to a real-time thread, and the value it replaces
/// handed back, so the real-time side never locks, allocates or frees: the control side
/// `offer`s a value it made; the real-time side `take`s it by swapping its parts with the ones
/// it holds; what it gives back is freed on the control side (`reclaim`, or the next `offer`).
///
/// The state says who owns the slot: empty or returned, the control side; offered, the
/// real-time side, which reads it only then. One value is in flight at a time: an offer not
/// yet taken is withdrawn by the next offer.
package final class Handoff<Value>: @unchecked Sendable {
    private static var empty: Int { 0 }
    private static var offered: Int { 1 }
    private static var returned: Int { 2 }

    private var slot: Value?
    private let state = Atomic<Int>(0)

    /// An empty handoff.
    package init() {}

    /// Control side: offers `value` to the real-time side. An earlier offer it has not taken
    /// is withdrawn and dropped here, as is a value it gave back.
    package func offer(_ value: consuming Value) {
        if state.load(ordering: .acquiring) == Self.offered {
            // Withdrawn unless the real-time side takes it meanwhile (then it is returned).
            _ = state.compareExchange(expected: Self.offered, desired: Self.empty, ordering: .acquiringAndReleasing)
        }
        slot = value
        state.store(Self.offered, ordering: .releasing)
    }

    /// Real-time side: when a value is offered, lets `exchange` swap what it holds with the
    /// offered value's parts (what it leaves there goes back to the control side) and returns
    /// true; otherwise returns false. One atomic load when nothing waits; never frees anything
    /// as long as `exchange` only swaps.
    @inline(__always)
    package func take(_ exchange: (inout Value) -> Void) -> Bool {
        guard state.load(ordering: .acquiring) == Self.offered else { return false }
        exchange(&slot!)
        state.store(Self.returned, ordering: .releasing)
        return true
    }

    /// Control side: whether an offer is still waiting for the real-time side.
    package var isOffered: Bool { state.load(ordering: .acquiring) == Self.offered }

    /// Control side: the value the real-time side gave back for the last offer it took, once.
    package func reclaim() -> Value? {
        guard state.load(ordering: .acquiring) == Self.returned else { return nil }
        let value = slot.take()
        state.store(Self.empty, ordering: .releasing)
        return value
    }
}
