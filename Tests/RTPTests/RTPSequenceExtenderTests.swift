// SPDX-License-Identifier: Apache-2.0
import RTP
import Testing

@Suite("Sequence numbers and timestamps")
struct RTPSequenceExtenderTests {
    @Test func serialNumberArithmetic() {
        #expect(SerialNumberArithmetic.distance(from: 65_535 as UInt16, to: 2) == 3)
        #expect(SerialNumberArithmetic.distance(from: 2 as UInt16, to: 65_535) == -3)
        #expect(SerialNumberArithmetic.distance(from: 0 as UInt16, to: 32_768) == -32_768)
        #expect(SerialNumberArithmetic.distance(from: 4_294_967_000 as UInt32, to: 10) == 306)
        #expect(SerialNumberArithmetic.isNewer(10 as UInt32, than: 4_294_967_000))
        #expect(!SerialNumberArithmetic.isNewer(4_294_967_000 as UInt32, than: 10))
        #expect(!SerialNumberArithmetic.isNewer(5 as UInt16, than: 5))
        #expect(SerialNumberArithmetic.newer(65_530 as UInt16, 4) == 4)
        #expect(SerialNumberArithmetic.advance(65_530 as UInt16, by: 10) == 4)
        #expect(SerialNumberArithmetic.advance(4 as UInt32, by: -10) == 4_294_967_290)
    }

    @Test func probationThenInOrderAcrossWrap() {
        var extender = RTPSequenceExtender()
        #expect(extender.update(65_533) == .probation)
        #expect(!extender.isValid)
        #expect(extender.update(65_534) == .inOrder(extendedSequence: 65_534))
        #expect(extender.isValid)
        #expect(extender.update(65_535) == .inOrder(extendedSequence: 65_535))
        #expect(extender.update(0) == .inOrder(extendedSequence: 65_536))
        #expect(extender.update(1) == .inOrder(extendedSequence: 65_537))
        #expect(extender.cycles == 65_536)
        #expect(extender.expected == 4)
        #expect(extender.received == 4)
    }

    @Test func probationRestartsOnAGap() {
        var extender = RTPSequenceExtender(minSequential: 3)
        #expect(extender.update(100) == .probation)
        #expect(extender.update(101) == .probation)
        #expect(extender.update(200) == .probation)  // gap: probation starts over
        #expect(extender.update(201) == .probation)
        #expect(extender.update(202) == .inOrder(extendedSequence: 202))
        #expect(extender.baseSequence == 202)
    }

    @Test func minSequentialOneAcceptsTheFirstPacket() {
        var extender = RTPSequenceExtender(minSequential: 1)
        #expect(extender.update(7) == .inOrder(extendedSequence: 7))
        #expect(extender.expected == 1)
    }

    @Test func reorderingAndDuplicatesAcrossWrap() {
        var extender = RTPSequenceExtender(minSequential: 1)
        _ = extender.update(65_534)
        #expect(extender.update(0) == .inOrder(extendedSequence: 65_536))       // 65535 missing
        #expect(extender.update(65_535) == .reordered(extendedSequence: 65_535)) // late, previous cycle
        #expect(extender.update(65_535) == .duplicate(extendedSequence: 65_535))
        #expect(extender.update(0) == .duplicate(extendedSequence: 65_536))
        #expect(extender.update(1) == .inOrder(extendedSequence: 65_537))
        #expect(extender.expected == 4)
        #expect(extender.received == 6)  // duplicates count as received (RFC 3550 A.3)
    }

    @Test func duplicateWindowReaches127Back() {
        var extender = RTPSequenceExtender(minSequential: 1)
        _ = extender.update(1000)
        for sequence in UInt16(1002)...1099 { _ = extender.update(sequence) }  // 1001 missing
        #expect(extender.update(1001) == .reordered(extendedSequence: 1001))
        #expect(extender.update(1001) == .duplicate(extendedSequence: 1001))
        #expect(extender.update(1000) == .duplicate(extendedSequence: 1000))
        // Beyond the misorder window (100 back) a packet counts as a big jump.
        #expect(extender.update(998) == .badJump)
    }

    @Test func gapsUnderMaxDropoutAreLossNotJumps() {
        var extender = RTPSequenceExtender(minSequential: 1)
        _ = extender.update(10)
        #expect(extender.update(10 + 2999) == .inOrder(extendedSequence: 3009))
        #expect(extender.expected == 3000)
        #expect(extender.received == 2)
    }

    @Test func bigJumpIsDiscardedUnlessFollowedInSequence() {
        var extender = RTPSequenceExtender(minSequential: 1)
        _ = extender.update(10)
        _ = extender.update(11)
        #expect(extender.update(11 + 3000) == .badJump)
        #expect(extender.update(12) == .inOrder(extendedSequence: 12))  // stray packet ignored
        #expect(extender.update(40_000) == .badJump)
        #expect(extender.update(40_001) == .restarted(extendedSequence: 40_001))
        #expect(extender.baseSequence == 40_001)
        #expect(extender.expected == 1)
        #expect(extender.received == 1)
        #expect(extender.update(40_002) == .inOrder(extendedSequence: 40_002))
    }

    @Test func longRunAcrossSeveralWraps() {
        var extender = RTPSequenceExtender()
        var sequence: UInt16 = 60_000
        for _ in 0..<200_000 {
            _ = extender.update(sequence)
            sequence &+= 1
        }
        #expect(extender.received == 199_999)
        #expect(extender.expected == 199_999)
        #expect(extender.extendedMaxSequence == 60_000 + 199_999)
    }
}
