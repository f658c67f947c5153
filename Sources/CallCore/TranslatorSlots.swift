// SPDX-License-Identifier: Apache-2.0
import Locking
import Synchronization

/// The translators a call's uplink may speak with, switchable while its audio runs: fixed
/// slots written once by the control side, and the slot in use as an atomic index the audio
/// side reads each frame. A translator is never released before the call (the slots keep
/// it), so the audio thread never drops a last reference; a call may use `capacity`.
final class TranslatorSlots: @unchecked Sendable {
    // @unchecked: a slot is written by the control side before `current` publishes it
    // (release/acquire) and never written again.

    /// Translators one call may install over its life.
    static let capacity = 16

    private let slots: UnsafeMutablePointer<(any TranslationEngine)?>
    /// The slot in use, or −1 when not translating.
    private let current = Atomic<Int>(-1)
    /// Slots written so far (control side, under the lock).
    private let written = Locked(0)

    init() {
        slots = .allocate(capacity: Self.capacity)
        slots.initialize(repeating: nil, count: Self.capacity)
    }

    deinit {
        slots.deinitialize(count: Self.capacity)
        slots.deallocate()
    }

    /// Speaks with `translator` from the next frame on (any thread).
    /// - Throws: `tooManyTranslators` when every slot has been used.
    func install(_ translator: any TranslationEngine) throws(CallMediaError) {
        let slot = try written.withLock { (count: inout Int) throws(CallMediaError) -> Int in
            guard count < Self.capacity else { throw .tooManyTranslators(capacity: Self.capacity) }
            slots[count] = translator
            count += 1
            return count - 1
        }
        current.store(slot, ordering: .releasing)
    }

    /// Stops translating from the next frame on (any thread).
    func stop() { current.store(-1, ordering: .releasing) }

    /// The translator speaking now, or nil (the audio side reads it once per frame).
    var translator: (any TranslationEngine)? {
        let slot = current.load(ordering: .acquiring)
        return slot >= 0 ? slots[slot] : nil
    }
}
