// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import Testing
import TestSupport

/// A packet far ahead of the stream (a sequence number and timestamp jump, as a forged,
/// corrupted or restarted sender produces) must not make the receiver conceal for as long as
/// the jump says: the audio played per packet received stays bounded, and the stream that goes
/// on as before plays on.
@Suite struct SequenceJumpTests {
    static func setSequence(_ bytes: inout [UInt8], plus sequenceJump: UInt16, timestampPlus: UInt32) {
        let sequence = (UInt16(bytes[2]) << 8 | UInt16(bytes[3])) &+ sequenceJump
        bytes[2] = UInt8(sequence >> 8); bytes[3] = UInt8(sequence & 0xFF)
        var timestamp = UInt32(bytes[4]) << 24 | UInt32(bytes[5]) << 16 | UInt32(bytes[6]) << 8 | UInt32(bytes[7])
        timestamp &+= timestampPlus
        bytes[4] = UInt8(timestamp >> 24); bytes[5] = UInt8((timestamp >> 16) & 0xFF)
        bytes[6] = UInt8((timestamp >> 8) & 0xFF); bytes[7] = UInt8(timestamp & 0xFF)
    }

    @Test(arguments: [(UInt16(10), UInt32(9_600)), (UInt16(100), UInt32(96_000)), (UInt16(30_000), UInt32(28_800_000)), (UInt16(5), UInt32(3_000_000))] as [(UInt16, UInt32)])
    func aLonePacketFarAheadDoesNotSilenceTheStream(sequenceJump: UInt16, timestampJump: UInt32) throws {
        let sender = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 1)
        let receiver = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        var frame = [Int16](repeating: 0, count: 960)
        var concealedBefore = 0
        for index in 0..<150 {
            let now = Double(index) * 20
            CallLoop.frame(index, of: CallOverNetworkTests.alice, length: 960).withUnsafeBufferPointer { sender.send(microphone: $0) }
            sender.sendDatagrams(nowMs: now) { datagram in
                var copy = Array(datagram)
                copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: now) }
                guard !CallMedia.isRTCP(datagram), index == 50 else { return }
                // One copy of this packet, far ahead.
                Self.setSequence(&copy, plus: sequenceJump, timestampPlus: timestampJump)
                copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: now) }
            }
            frame.withUnsafeMutableBufferPointer { _ = receiver.render(into: $0, nowMs: now) }
            if index == 49 { concealedBefore = receiver.statistics.inbound.concealedSamples }
        }
        let inbound = receiver.statistics.inbound
        let concealedAfter = inbound.concealedSamples - concealedBefore
        // At most a couple of frames of disturbance for one stray packet.
        #expect(concealedAfter <= 2 * 960, "\(concealedAfter) samples concealed after one packet \(sequenceJump) ahead")
        #expect(inbound.packetsDiscarded <= 1, "the stray packet at most: the stream itself played on")
        if sequenceJump > 50 {
            // Held on probation and dropped, it never reached the delay estimate.
            #expect(inbound.jitterBufferTargetDelayMs < 100)
        }
    }

    /// A real jump — the sender kept counting through a 2 s outage — is confirmed by the
    /// packet after it, and playout goes on from there. The receiver starts at 100 ms: how far
    /// behind the last packet the stall begins is the start's delay, and from 150 ms on (the
    /// default) the span still owed when packets resume leaves one packet of backlog beyond what
    /// accelerating takes out, which the stall's skip drops (`StallBacklogTests`): a packet
    /// discarded that is not the jump's doing.
    @Test func aJumpTheStreamConfirmsIsFollowed() throws {
        let sender = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 1)
        var receiving = MediaConfiguration()
        receiving.jitterBuffer.initialDelayMs = 100
        let receiver = try CallMedia(configuration: receiving, sendingKey: nil, receivingKey: nil)
        var frame = [Int16](repeating: 0, count: 960)
        var afterOutage: [Int16] = []
        for index in 0..<250 {
            let now = Double(index) * 20
            CallLoop.frame(index, of: CallOverNetworkTests.alice, length: 960).withUnsafeBufferPointer { sender.send(microphone: $0) }
            sender.sendDatagrams(nowMs: now) { datagram in
                guard CallMedia.isRTCP(datagram) || !(50..<150).contains(index) else { return }
                var copy = Array(datagram)
                copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: now) }
            }
            frame.withUnsafeMutableBufferPointer { _ = receiver.render(into: $0, nowMs: now) }
            if index >= 160 { afterOutage += frame }
        }
        let inbound = receiver.statistics.inbound
        #expect(inbound.packetsDiscarded == 0)
        #expect(inbound.packetsLost == 100)
        // The outage is concealed (100 frames, give or take the frames around it), no more.
        #expect(inbound.concealedSamples <= 104 * 960, "\(inbound.concealedSamples)")
        // And the speech after it plays.
        #expect(SignalComparison.rmsDecibels(afterOutage) > -40)
    }
}
