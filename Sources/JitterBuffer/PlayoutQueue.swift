// SPDX-License-Identifier: Apache-2.0
/// Decoded audio waiting to be emitted, tick by tick: a preallocated ring of samples plus a
/// small ring of segment markers (where each production starts, what it was and when its
/// packet arrived) so emission can report events and W3C delay statistics. No allocation
/// after `init`.
final class PlayoutQueue {
    /// One production appended to the queue.
    struct Segment {
        var start: Int
        var kind: PlayoutKind
        var sequenceNumber: UInt16?
        /// Arrival of the packet behind the samples; `nil` for synthesized audio.
        var arrivalMs: Double?
    }

    private let samples: UnsafeMutableBufferPointer<Int16>
    private let segments: UnsafeMutableBufferPointer<Segment>
    private var segmentHead = 0
    private var segmentCount = 0
    /// Total samples ever appended and emitted; `written - read` are queued.
    private(set) var written = 0
    private(set) var read = 0
    var count: Int { written - read }

    init(sampleCapacity: Int, segmentCapacity: Int) {
        samples = .allocate(capacity: sampleCapacity)
        samples.initialize(repeating: 0)
        segments = .allocate(capacity: segmentCapacity)
        segments.initialize(repeating: Segment(start: 0, kind: .normal, sequenceNumber: nil, arrivalMs: nil))
    }

    deinit {
        samples.deallocate()
        segments.deallocate()
    }

    /// Appends `source` as one segment.
    func append(_ source: UnsafeBufferPointer<Int16>, kind: PlayoutKind, sequenceNumber: UInt16?, arrivalMs: Double?) {
        precondition(count + source.count <= samples.count, "PlayoutQueue overflow")
        if segmentCount == segments.count {  // drop the oldest marker (its samples were emitted long ago)
            segmentHead = (segmentHead + 1) % segments.count
            segmentCount -= 1
        }
        segments[(segmentHead + segmentCount) % segments.count] =
            Segment(start: written, kind: kind, sequenceNumber: sequenceNumber, arrivalMs: arrivalMs)
        segmentCount += 1
        for sample in source {
            samples[written % samples.count] = sample
            written += 1
        }
    }

    /// What `emit` reports about the samples it wrote.
    struct Emission {
        var started: Segment?
        /// The first and last sequence numbers among the segments that started in the emitted range.
        var firstStartedSequence: UInt16?
        var lastStartedSequence: UInt16?
        var latest: Segment?
        var delaySeconds = 0.0
        var packetSamples = 0
    }

    /// Moves `destination.count` samples out (the caller made sure they are queued).
    func emit(into destination: UnsafeMutableBufferPointer<Int16>, nowMs: Double) -> Emission {
        let end = read + destination.count
        var emission = Emission()
        for offset in 0..<destination.count {
            destination[offset] = samples[(read + offset) % samples.count]
        }
        // Walk the segments overlapping read..<end.
        var index = 0
        while index < segmentCount {
            let segment = segments[(segmentHead + index) % segments.count]
            let segmentEnd = index + 1 < segmentCount ? segments[(segmentHead + index + 1) % segments.count].start : written
            if segmentEnd <= read { index += 1; continue }
            if segment.start >= end { break }
            let overlap = min(end, segmentEnd) - max(read, segment.start)
            if segment.start >= read {
                if emission.started == nil { emission.started = segment }
                if let sequence = segment.sequenceNumber {
                    if emission.firstStartedSequence == nil { emission.firstStartedSequence = sequence }
                    emission.lastStartedSequence = sequence
                }
            }
            emission.latest = segment
            if let arrival = segment.arrivalMs, overlap > 0 {
                emission.packetSamples += overlap
                emission.delaySeconds += Double(overlap) * max(0, nowMs - arrival) / 1_000
            }
            index += 1
        }
        read = end
        // Forget the markers wholly emitted, keeping the one still playing.
        while segmentCount > 1 && segments[(segmentHead + 1) % segments.count].start <= read {
            segmentHead = (segmentHead + 1) % segments.count
            segmentCount -= 1
        }
        return emission
    }

    /// Drops everything queued.
    func removeAll() {
        read = written
        segmentCount = 0
    }
}
