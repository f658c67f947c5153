// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

/// `PlayoutQueue` on its own: samples in order, and what each emission reports.
@Suite struct PlayoutQueueTests {
    static func append(_ queue: PlayoutQueue, _ count: Int, value: Int16, kind: PlayoutKind = .normal,
                       sequence: UInt16? = nil, arrivalMs: Double? = nil) {
        let samples = [Int16](repeating: value, count: count)
        samples.withUnsafeBufferPointer { queue.append($0, kind: kind, sequenceNumber: sequence, arrivalMs: arrivalMs) }
    }

    static func emit(_ queue: PlayoutQueue, _ count: Int, nowMs: Double = 100) -> ([Int16], PlayoutQueue.Emission) {
        var samples = [Int16](repeating: -1, count: count)
        let emission = samples.withUnsafeMutableBufferPointer { queue.emit(into: $0, nowMs: nowMs) }
        return (samples, emission)
    }

    @Test func emitsSamplesInOrderAcrossTheRingsEnd() {
        let queue = PlayoutQueue(sampleCapacity: 10, segmentCapacity: 4)
        for round in 0..<5 {  // 5 × 6 samples through a 10-sample ring
            Self.append(queue, 6, value: Int16(round))
            #expect(queue.count == 6)
            let (samples, _) = Self.emit(queue, 6)
            #expect(samples == [Int16](repeating: Int16(round), count: 6))
            #expect(queue.count == 0)
        }
    }

    /// An emission reports the first segment that started in it, the first and last sequence
    /// numbers that started, the latest segment it touched, and the W3C delay of packet audio.
    @Test func reportsTheSegmentsThatStartedAndTheirDelay() throws {
        let queue = PlayoutQueue(sampleCapacity: 100, segmentCapacity: 8)
        Self.append(queue, 10, value: 1, kind: .accelerate, sequence: 7, arrivalMs: 60)
        Self.append(queue, 10, value: 2, kind: .expand)
        Self.append(queue, 10, value: 3, kind: .merge, sequence: 9, arrivalMs: 80)
        let (samples, emission) = Self.emit(queue, 25, nowMs: 100)
        #expect(samples == [Int16](repeating: 1, count: 10) + [Int16](repeating: 2, count: 10) + [Int16](repeating: 3, count: 5))
        #expect(emission.started?.kind == .accelerate)
        #expect(emission.firstStartedSequence == 7 && emission.lastStartedSequence == 9)
        #expect(emission.latest?.kind == .merge)
        // Packet audio only: 10 samples 40 ms after arrival, 5 samples 20 ms after.
        #expect(emission.packetSamples == 15)
        #expect(abs(emission.delaySeconds - (10 * 0.040 + 5 * 0.020)) < 1e-12)
        // The rest of the merged segment: nothing starts, it continues.
        let (_, rest) = Self.emit(queue, 5, nowMs: 120)
        #expect(rest.started == nil && rest.firstStartedSequence == nil)
        #expect(rest.latest?.kind == .merge && rest.latest?.sequenceNumber == 9)
        #expect(rest.packetSamples == 5 && abs(rest.delaySeconds - 5 * 0.040) < 1e-12)
    }

    /// A packet that arrived "after" its emission (a clock quirk) adds no negative delay.
    @Test func delayIsNeverNegative() {
        let queue = PlayoutQueue(sampleCapacity: 100, segmentCapacity: 8)
        Self.append(queue, 10, value: 1, sequence: 1, arrivalMs: 150)
        #expect(Self.emit(queue, 10, nowMs: 100).1.delaySeconds == 0)
    }

    /// When more segments are queued than markers fit, the oldest marker is dropped: its
    /// samples still play, reported as part of the segment before.
    @Test func droppingTheOldestMarkerKeepsTheSamples() {
        let queue = PlayoutQueue(sampleCapacity: 100, segmentCapacity: 2)
        Self.append(queue, 4, value: 1, sequence: 1)
        Self.append(queue, 4, value: 2, sequence: 2)
        Self.append(queue, 4, value: 3, sequence: 3)
        let (samples, emission) = Self.emit(queue, 12)
        #expect(samples == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])
        #expect(emission.firstStartedSequence == 2 && emission.lastStartedSequence == 3)
    }

    @Test func removeAllDropsEverythingQueued() {
        let queue = PlayoutQueue(sampleCapacity: 100, segmentCapacity: 8)
        Self.append(queue, 30, value: 5, sequence: 1)
        queue.removeAll()
        #expect(queue.count == 0)
        Self.append(queue, 3, value: 6, kind: .fecRecovery, sequence: 2)
        let (samples, emission) = Self.emit(queue, 3)
        #expect(samples == [6, 6, 6])
        #expect(emission.started?.kind == .fecRecovery && emission.firstStartedSequence == 2)
    }
}
