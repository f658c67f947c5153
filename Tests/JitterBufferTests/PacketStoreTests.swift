// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

/// `PacketStore` on its own: the ring of packets by extended sequence number.
@Suite struct PacketStoreTests {
    static func insert(_ store: PacketStore, _ sequence: Int64, bytes: [UInt8] = [1, 2, 3], hasFEC: Bool = false) -> PacketStore.InsertResult {
        bytes.withUnsafeBytes {
            store.insert(sequence: sequence, timestamp: sequence * 960, arrivalMs: Double(sequence), hasFEC: hasFEC, payload: $0)
        }
    }

    @Test func storesACopyOfThePayloadWithItsMetadata() throws {
        let store = PacketStore(capacity: 8)
        var bytes: [UInt8] = [9, 8, 7, 6]
        #expect(Self.insert(store, 42, bytes: bytes, hasFEC: true) == .stored)
        bytes[0] = 0  // the store kept its own copy
        let slot = try #require(store.first(from: 42, through: 42))
        #expect(slot == PacketStore.Slot(isOccupied: true, sequence: 42, timestamp: 42 * 960, arrivalMs: 42, byteCount: 4, hasFEC: true))
        #expect(Array(store.payload(of: slot)) == [9, 8, 7, 6])
        #expect(store.count == 1)
    }

    @Test func refusesDuplicatesCollisionsAndOversizedPayloads() {
        let store = PacketStore(capacity: 8)
        #expect(Self.insert(store, 3) == .stored)
        #expect(Self.insert(store, 3) == .duplicate)
        #expect(Self.insert(store, 3 + 8) == .collision)  // same slot, another packet
        #expect(Self.insert(store, 4, bytes: [UInt8](repeating: 0, count: PacketStore.maximumPayloadBytes + 1)) == .tooLarge)
        #expect(Self.insert(store, 4, bytes: [UInt8](repeating: 0, count: PacketStore.maximumPayloadBytes)) == .stored)
        #expect(store.count == 2)
    }

    @Test func firstFindsTheLowestStoredSequenceInTheRange() {
        let store = PacketStore(capacity: 8)
        for sequence: Int64 in [10, 12, 15] { _ = Self.insert(store, sequence) }
        #expect(store.first(from: 10, through: 20)?.sequence == 10)
        #expect(store.first(from: 11, through: 20)?.sequence == 12)
        #expect(store.first(from: 13, through: 14) == nil)
        #expect(store.first(from: 16, through: 15) == nil)  // an empty range
        // Only one ring's worth is searched: 15 is 8 beyond 7.
        #expect(store.first(from: 7, through: 100)?.sequence == 10)
        #expect(store.first(from: 2, through: 100) == nil)
    }

    @Test func removeFreesOnlyThatPacketsSlot() {
        let store = PacketStore(capacity: 4)
        _ = Self.insert(store, 5)
        store.remove(sequence: 9)  // same slot, another sequence: kept
        #expect(store.count == 1 && store.first(from: 5, through: 5) != nil)
        store.remove(sequence: 5)
        #expect(store.count == 0 && store.first(from: 0, through: 10) == nil)
        #expect(Self.insert(store, 9) == .stored)  // the slot is free again
    }

    @Test func removeAllEmptiesEverySlot() {
        let store = PacketStore(capacity: 4)
        for sequence: Int64 in 0..<4 { _ = Self.insert(store, sequence) }
        store.removeAll()
        #expect(store.count == 0)
        #expect(store.first(from: 0, through: 3) == nil)
        #expect(Self.insert(store, 2) == .stored)
    }

    /// Extended sequence numbers below zero (a stream restarted from a reference) still map to slots.
    @Test func negativeSequencesMapToSlots() {
        let store = PacketStore(capacity: 4)
        #expect(Self.insert(store, -1) == .stored)
        #expect(Self.insert(store, 3) == .collision)  // −1 and 3 share a slot
        #expect(store.first(from: -2, through: 0)?.sequence == -1)
    }
}
