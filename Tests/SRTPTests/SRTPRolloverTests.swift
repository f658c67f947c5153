// SPDX-License-Identifier: Apache-2.0
import SRTP
import Testing
import TestSupport

/// Rollover counter (ROC) behaviour across the 16-bit sequence wrap, and its continuity when a
/// session is re-created with the same key (re-INVITE, media restart).
@Suite struct SRTPRolloverTests {
    static let ssrc: UInt32 = 0xDEC0_DE01
    static let profiles: [SRTPProfile] = [.aesCM128HmacSha1_80, .aeadAES128GCM]

    @Test(arguments: profiles)
    func seventyThousandPacketsAcrossTheWrapInOrder(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        var delivered = 0
        try sendPackets(sender, ssrc: Self.ssrc, from: 0, count: 70_000, buffer: buffer) { packet, sequenceNumber in
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
            if packet.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc, payloadLength: 20) { delivered += 1 }
        }
        #expect(delivered == 70_000)
        let expected = SRTPStreamState(ssrc: Self.ssrc, rolloverCounter: 1, highestSequenceNumber: UInt16(69_999 - 65_536))
        #expect(sender.streamState(ssrc: Self.ssrc) == expected)
        #expect(receiver.streamState(ssrc: Self.ssrc) == expected)
    }

    /// Packets shuffled (seeded) within consecutive windows of 32 still all decrypt, including
    /// those whose sequence numbers straddle the wrap.
    @Test(arguments: profiles)
    func seventyThousandPacketsAcrossTheWrapReordered(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        var packets: [(sequenceNumber: UInt16, bytes: [UInt8])] = []
        packets.reserveCapacity(70_000)
        try sendPackets(sender, ssrc: Self.ssrc, from: 0, count: 70_000, buffer: buffer) { packet, sequenceNumber in
            packets.append((sequenceNumber, packet.bytes))
        }
        var generator = SeededGenerator(seed: 0x5EED)
        for start in stride(from: 0, to: packets.count, by: 32) {
            packets[start..<min(start + 32, packets.count)].shuffle(using: &generator)
        }
        #expect(packets.map(\.sequenceNumber) != (0..<70_000).map { UInt16(truncatingIfNeeded: $0) })

        var delivered = 0
        for packet in packets {
            buffer.load(packet.bytes)
            buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
            if buffer.holdsRTP(sequenceNumber: packet.sequenceNumber, ssrc: Self.ssrc, payloadLength: 20) { delivered += 1 }
        }
        #expect(delivered == 70_000)
        #expect(receiver.streamState(ssrc: Self.ssrc)?.rolloverCounter == 1)
    }

    /// A receiver that first hears the stream at sequence 65,000 (ROC 0) follows it across the
    /// wrap: libsrtp takes ROC 0 for a new stream and estimates onwards.
    @Test(arguments: profiles)
    func receiverJoiningAt65000FollowsAcrossTheWrap(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        try sendPackets(sender, ssrc: Self.ssrc, from: 0, count: 65_000, buffer: buffer) { _, _ in }

        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        var delivered = 0
        try sendPackets(sender, ssrc: Self.ssrc, from: 65_000, count: 5_000, buffer: buffer) { packet, sequenceNumber in
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
            if packet.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc, payloadLength: 20) { delivered += 1 }
        }
        #expect(delivered == 5_000)
        #expect(receiver.streamState(ssrc: Self.ssrc) == SRTPStreamState(ssrc: Self.ssrc, rolloverCounter: 1, highestSequenceNumber: 4_463))
    }

    /// The field bug: after 70,000 packets (ROC 1) the receiving side is re-created with the same
    /// key. Resumed with the saved stream state, it keeps decrypting; re-created without it, it
    /// assumes ROC 0 and every packet fails authentication (one-way audio).
    @Test(arguments: profiles)
    func recreatedReceiverNeedsTheRolloverCounter(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        var receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        var oldPacket: [UInt8] = []
        try sendPackets(sender, ssrc: Self.ssrc, from: 0, count: 70_000, buffer: buffer) { packet, sequenceNumber in
            if sequenceNumber == 4_400 { oldPacket = packet.bytes }  // ends as the ROC 1 one, inside the window
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
        }
        let saved = receiver.streamStates
        #expect(saved == [SRTPStreamState(ssrc: Self.ssrc, rolloverCounter: 1, highestSequenceNumber: 4_463)])

        receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys, resuming: saved)
        #expect(receiver.streamStates == saved)  // known before its first packet
        let fresh = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        var resumedDelivered = 0
        var freshFailures = 0
        try sendPackets(sender, ssrc: Self.ssrc, from: 70_000, count: 1_000, buffer: buffer) { packet, sequenceNumber in
            let copy = packet.bytes
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
            if packet.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc, payloadLength: 20) { resumedDelivered += 1 }
            packet.load(copy)
            #expect(throws: SRTPError.authenticationFailed) { _ = try fresh.unprotect(packet.raw, length: packet.length) }
            freshFailures += 1
        }
        #expect(resumedDelivered == 1_000)
        #expect(freshFailures == 1_000)
        #expect(receiver.streamState(ssrc: Self.ssrc) == SRTPStreamState(ssrc: Self.ssrc, rolloverCounter: 1, highestSequenceNumber: 5_463))

        // A packet the old session already accepted is refused by the resumed one.
        buffer.load(oldPacket)
        #expect(throws: SRTPError.replay) { _ = try receiver.unprotect(buffer.raw, length: buffer.length) }
    }

    /// The sending side is re-created with the same key after 70,000 packets. Resumed, it
    /// continues at ROC 1 and the (unchanged) receiver keeps decrypting; without resuming it
    /// restarts at ROC 0 and the receiver rejects everything.
    @Test(arguments: profiles)
    func recreatedSenderNeedsTheRolloverCounter(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        var sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        try sendPackets(sender, ssrc: Self.ssrc, from: 0, count: 70_000, buffer: buffer) { packet, _ in
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
        }
        let saved = sender.streamStates

        // Without resuming: ROC 0 packets are refused by the receiver (index far behind).
        let fresh = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        try sendPackets(fresh, ssrc: Self.ssrc, from: 70_000, count: 10, buffer: buffer) { packet, _ in
            #expect(throws: SRTPError.self) { _ = try receiver.unprotect(packet.raw, length: packet.length) }
        }

        sender = try SRTPSession(direction: .outbound, keyingMaterial: keys, resuming: saved)
        // Re-sending an index the old session used would reuse keystream: refused.
        buffer.writeRTP(sequenceNumber: 4_463, ssrc: Self.ssrc)
        #expect(throws: SRTPError.replay) { _ = try sender.protect(buffer.raw, length: buffer.length) }

        var delivered = 0
        try sendPackets(sender, ssrc: Self.ssrc, from: 70_000, count: 1_000, buffer: buffer) { packet, sequenceNumber in
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
            if packet.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc, payloadLength: 20) { delivered += 1 }
        }
        #expect(delivered == 1_000)
        #expect(sender.streamState(ssrc: Self.ssrc) == receiver.streamState(ssrc: Self.ssrc))
        #expect(sender.streamState(ssrc: Self.ssrc)?.rolloverCounter == 1)
    }

    /// Saved just before a wrap (ROC 0, sequence 65,530), the restart happens to land after it:
    /// the first packet (sequence 4, ROC 1) is recognised as the next ROC on both sides.
    @Test(arguments: profiles)
    func resumingJustBeforeTheWrap(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        var sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        var receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        try sendPackets(sender, ssrc: Self.ssrc, from: 65_400, count: 131, buffer: buffer) { packet, _ in
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
        }
        #expect(receiver.streamState(ssrc: Self.ssrc) == SRTPStreamState(ssrc: Self.ssrc, rolloverCounter: 0, highestSequenceNumber: 65_530))
        sender = try SRTPSession(direction: .outbound, keyingMaterial: keys, resuming: sender.streamStates)
        receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys, resuming: receiver.streamStates)

        var delivered = 0
        try sendPackets(sender, ssrc: Self.ssrc, from: 65_536 + 4, count: 100, buffer: buffer) { packet, sequenceNumber in
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
            if packet.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc, payloadLength: 20) { delivered += 1 }
        }
        #expect(delivered == 100)
        #expect(receiver.streamState(ssrc: Self.ssrc) == SRTPStreamState(ssrc: Self.ssrc, rolloverCounter: 1, highestSequenceNumber: 103))
        #expect(sender.streamState(ssrc: Self.ssrc) == receiver.streamState(ssrc: Self.ssrc))
    }

    @Test func duplicateResumedSSRCIsRejected() throws {
        let keys = try fixedKeyingMaterial(.aesCM128HmacSha1_80)
        let state = SRTPStreamState(ssrc: 7, rolloverCounter: 2, highestSequenceNumber: 9)
        #expect(state.packetIndex == 2 << 16 | 9)
        #expect(throws: SRTPError.self) {
            _ = try SRTPSession(direction: .inbound, keyingMaterial: keys, resuming: [state, state])
        }
    }
}
