// SPDX-License-Identifier: Apache-2.0
import RTP

/// One packet far ahead of its stream, held until the packet after it confirms the jump (as
/// RFC 3550 A.1 makes a receiver wait for two packets in sequence after a large jump).
///
/// Without it one stray packet — corrupted, replayed from another call, injected into plain
/// RTP, or a sender's glitch — moves the stream: its media time, seconds ahead of its arrival,
/// drags the delay estimate to the maximum, and playout skips to it and discards everything
/// the real stream sends until it catches up (94 frames of a 150-frame call, for one packet
/// 100 ahead). A real jump (an outage the sender kept counting through, a restart) is
/// followed by its successor, and both are stored with their own arrival times, one packet
/// interval later than they would have been; that interval is concealed anyway.
///
/// The packet's bytes are copied into a buffer allocated once: holding allocates nothing.
final class JumpProbation {
    /// The largest RTP packet held (a datagram's size; larger ones are not held).
    static let capacity = 1_500
    private let storage: UnsafeMutableRawBufferPointer
    private(set) var length = 0
    private(set) var arrivalTimeMs = 0.0
    private(set) var sequenceNumber: UInt16 = 0
    private(set) var ssrc: UInt32 = 0

    init() {
        storage = .allocate(byteCount: Self.capacity, alignment: 4)
        storage.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { storage.deallocate() }

    /// Whether a packet is held.
    var isHolding: Bool { length > 0 }

    /// Holds `packet` (replacing any held one). Returns false when it is too large to hold.
    func hold(_ packet: RTPPacketView, arrivalTimeMs: Double) -> Bool {
        guard packet.bytes.count <= Self.capacity else { return false }
        UnsafeMutableRawBufferPointer(rebasing: storage[0..<packet.bytes.count]).copyMemory(from: packet.bytes)
        length = packet.bytes.count
        self.arrivalTimeMs = arrivalTimeMs
        sequenceNumber = packet.sequenceNumber
        ssrc = packet.ssrc
        return true
    }

    /// Whether `packet` is the held packet's successor in the same stream.
    func isConfirmed(by packet: RTPPacketView) -> Bool {
        isHolding && packet.ssrc == ssrc && packet.sequenceNumber == sequenceNumber &+ 1
    }

    /// Hands the held packet to `body` and lets it go.
    /// (The bytes stay in place for `body`; the probation is already empty while it runs.)
    func release(_ body: (RTPPacketView, Double) -> Void) {
        let count = length
        length = 0
        guard count > 0, let packet = try? RTPPacketView(UnsafeRawBufferPointer(rebasing: storage[0..<count])) else { return }
        body(packet, arrivalTimeMs)
    }

    /// Lets the held packet go unplayed.
    func drop() { length = 0 }
}
