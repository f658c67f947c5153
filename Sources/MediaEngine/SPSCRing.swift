/// A preallocated single-producer/single-consumer ring of plain values (events, commands):
/// one thread pushes, one thread pops, neither locks nor allocates.
///
/// `Element` is `BitwiseCopyable`, so a slot is copied without reference counting and a pop
/// never runs a deinitialiser on the consuming thread.
final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    private let cursor: SPSCCursor
    private let slots: UnsafeMutablePointer<Element>

    /// A ring of at least `minimumCapacity` elements, each slot initialised to `filler`.
    init(minimumCapacity: Int, filler: Element) {
        cursor = SPSCCursor(minimumCapacity: minimumCapacity)
        slots = .allocate(capacity: cursor.capacity)
        slots.initialize(repeating: filler, count: cursor.capacity)
    }

    deinit { slots.deallocate() }

    /// Elements the ring holds at most.
    var capacity: Int { cursor.capacity }

    /// Elements waiting.
    var count: Int { cursor.count }

    /// Appends `element`; false (and nothing stored) when the ring is full. Producer only.
    @discardableResult
    func push(_ element: Element) -> Bool {
        guard let slot = cursor.slotToWrite() else { return false }
        slots[slot] = element
        cursor.publish()
        return true
    }

    /// Removes and returns the oldest element, or nil when empty. Consumer only.
    func pop() -> Element? {
        guard let slot = cursor.slotToRead() else { return nil }
        let element = slots[slot]
        cursor.release()
        return element
    }
}
