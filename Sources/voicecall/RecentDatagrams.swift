// SPDX-License-Identifier: Apache-2.0
import Transport

/// The first bytes of the datagrams a call sent lately, to tell an ICMP error that quotes one
/// of ours (the peer's host refused it) from a forged one. An ICMP error carries the start of
/// the datagram it refuses: for SRTP the RTP header, sent in the clear, whose sequence number,
/// timestamp and SSRC nobody off the path can know. Fixed storage, filled in turn.
struct RecentDatagrams {
    /// Datagrams remembered: over a second of 20 ms packets, far longer than an ICMP error
    /// takes to come back.
    static let capacity = 64
    /// Bytes an ICMP error must quote at least to be recognised (RFC 792 guarantees 8).
    static let minimumQuote = 8

    private var prefixes = [UInt8](repeating: 0, count: capacity * Refusals.quotedBytes)
    private var lengths = [Int](repeating: 0, count: capacity)
    private var next = 0

    /// Remembers the start of `datagram`, just sent.
    mutating func note(_ datagram: UnsafeRawBufferPointer) {
        let length = min(datagram.count, Refusals.quotedBytes)
        let base = next * Refusals.quotedBytes
        for index in 0..<length { prefixes[base + index] = datagram[index] }
        lengths[next] = length
        next = (next + 1) % Self.capacity
    }

    /// Whether `quote` (what an ICMP error quotes) is the start of a datagram remembered here.
    func contains(quote: UnsafeRawBufferPointer) -> Bool {
        let length = min(quote.count, Refusals.quotedBytes)
        guard length >= Self.minimumQuote else { return false }
        return (0..<Self.capacity).contains { slot in
            let base = slot * Refusals.quotedBytes
            return lengths[slot] >= length && (0..<length).allSatisfy { prefixes[base + $0] == quote[$0] }
        }
    }
}
