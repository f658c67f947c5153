// SPDX-License-Identifier: Apache-2.0
/// The received packets waiting for playout: a preallocated ring of slots indexed by extended
/// sequence number, each with room for one payload (copied in). No allocation after `init`.
final class PacketStore {
    /// One stored packet's metadata; its payload lives in the store's byte arena.
    struct Slot: Equatable {
        var isOccupied = false
        /// Extended sequence number.
        var sequence: Int64 = 0
        /// Extended RTP timestamp.
        var timestamp: Int64 = 0
        /// When it arrived, on the receiver's clock.
        var arrivalMs = 0.0
        /// Payload length.
        var byteCount = 0
        /// The payload carries in-band FEC for the packet before it.
        var hasFEC = false
        /// The payload is the sender's DTX frame (comfort noise, not speech).
        var isComfortNoise = false
        /// Its RTP payload type: the buffer's decoder for it plays it (`PayloadDecoders`).
        var payloadType: UInt8 = 0

        /// The RTP sequence number (the extended one's low 16 bits).
        var rtpSequenceNumber: UInt16 { UInt16(truncatingIfNeeded: sequence) }
    }

    /// Outcome of `insert`.
    enum InsertResult { case stored, duplicate, collision, tooLarge }

    /// Largest payload kept, in bytes (an Opus packet is at most 1275 bytes per frame).
    static let maximumPayloadBytes = 1_500
    let capacity: Int
    private(set) var count = 0
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let arena: UnsafeMutableRawBufferPointer

    init(capacity: Int) {
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot())
        arena = .allocate(byteCount: capacity * Self.maximumPayloadBytes, alignment: 16)
    }

    deinit {
        slots.deallocate()
        arena.deallocate()
    }

    private func index(_ sequence: Int64) -> Int {
        let remainder = Int(sequence % Int64(capacity))
        return remainder < 0 ? remainder + capacity : remainder
    }

    /// Copies `payload` into the slot of `sequence`.
    func insert(sequence: Int64, timestamp: Int64, arrivalMs: Double, hasFEC: Bool, isComfortNoise: Bool = false, payloadType: UInt8 = 0,
                payload: UnsafeRawBufferPointer) -> InsertResult {
        guard payload.count <= Self.maximumPayloadBytes else { return .tooLarge }
        let slotIndex = index(sequence)
        if slots[slotIndex].isOccupied {
            return slots[slotIndex].sequence == sequence ? .duplicate : .collision
        }
        let destination = UnsafeMutableRawBufferPointer(rebasing: arena[(slotIndex * Self.maximumPayloadBytes)...])
        destination.copyMemory(from: payload)
        slots[slotIndex] = Slot(isOccupied: true, sequence: sequence, timestamp: timestamp, arrivalMs: arrivalMs,
                                byteCount: payload.count, hasFEC: hasFEC, isComfortNoise: isComfortNoise, payloadType: payloadType)
        count += 1
        return .stored
    }

    /// The stored packet with the lowest sequence number in `from...through`, if any.
    func first(from: Int64, through: Int64) -> Slot? {
        guard count > 0, from <= through else { return nil }
        var sequence = from
        let last = min(through, from + Int64(capacity) - 1)
        while sequence <= last {
            let slot = slots[index(sequence)]
            if slot.isOccupied && slot.sequence == sequence { return slot }
            sequence += 1
        }
        return nil
    }

    /// The payload bytes of a stored packet (valid until it is removed or overwritten).
    func payload(of slot: Slot) -> UnsafeRawBufferPointer {
        let start = index(slot.sequence) * Self.maximumPayloadBytes
        return UnsafeRawBufferPointer(rebasing: arena[start..<(start + slot.byteCount)])
    }

    /// Frees the slot of `sequence` if it holds that packet.
    func remove(sequence: Int64) {
        let slotIndex = index(sequence)
        guard slots[slotIndex].isOccupied, slots[slotIndex].sequence == sequence else { return }
        slots[slotIndex].isOccupied = false
        count -= 1
    }

    /// Drops every packet.
    func removeAll() {
        for slotIndex in 0..<capacity { slots[slotIndex].isOccupied = false }
        count = 0
    }
}
