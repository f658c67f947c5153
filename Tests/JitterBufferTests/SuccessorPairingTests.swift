// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

/// Each packet paired with the one after it, whichever arrives first and however late.
@Suite struct SuccessorPairingTests {
    /// Adds packets given as (index, relative delay, carries FEC) and returns the pairs completed.
    static func pairs(_ packets: [(index: Int, relativeMs: Double, carriesFEC: Bool)], spanMs: Double = 1_000) -> [SuccessorPairing.Pair] {
        let pairing = SuccessorPairing(spanMs: spanMs, packetDurationMs: 20)
        var pairs: [SuccessorPairing.Pair] = []
        for packet in packets {
            pairing.add(mediaTimeMs: Double(packet.index) * 20, relativeMs: packet.relativeMs, carriesFEC: packet.carriesFEC) { pairs.append($0) }
        }
        return pairs
    }

    /// Packet 10 comes 600 ms late, after thirty packets that came on time (its successor among
    /// them): it is still paired with packet 11, and 11 with 12 as usual.
    @Test func aPacketFarLaterThanItsSuccessorIsPairedWithIt() {
        var packets = (0..<40).filter { $0 != 10 }.map { (index: $0, relativeMs: 1.0, carriesFEC: true) }
        packets.append((index: 10, relativeMs: 600, carriesFEC: true))
        let pairs = Self.pairs(packets)
        #expect(pairs.contains(SuccessorPairing.Pair(lateMs: 600, successorMs: 1)))
        #expect(pairs.contains(SuccessorPairing.Pair(lateMs: 1, successorMs: 600)), "10 carries FEC for 9")
        #expect(pairs.count == 39, "every packet but the last with its successor")
    }

    /// Only a successor that carries FEC rebuilds: no pair where it carries none.
    @Test func aSuccessorWithoutFECRebuildsNothing() {
        let pairs = Self.pairs([(index: 0, relativeMs: 300, carriesFEC: true), (index: 1, relativeMs: 0, carriesFEC: false),
                                (index: 3, relativeMs: 0, carriesFEC: true), (index: 2, relativeMs: 250, carriesFEC: false)])
        #expect(pairs == [SuccessorPairing.Pair(lateMs: 250, successorMs: 0)])
    }

    /// A duplicate completes nothing again; a packet beyond the span has left the ring.
    @Test func duplicatesAndPacketsBeyondTheSpanPairNothing() {
        let duplicate = Self.pairs([(index: 0, relativeMs: 5, carriesFEC: true), (index: 1, relativeMs: 0, carriesFEC: true),
                                    (index: 1, relativeMs: 0, carriesFEC: true)])
        #expect(duplicate.count == 1)
        // A 100 ms span keeps 9 slots: packet 0's slot is taken by packet 9 before 1 comes.
        let beyond = Self.pairs([(index: 0, relativeMs: 5, carriesFEC: true), (index: 9, relativeMs: 0, carriesFEC: true),
                                 (index: 1, relativeMs: 0, carriesFEC: true)], spanMs: 100)
        #expect(beyond.isEmpty)
    }
}
