// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import SRTP
import Testing

/// Each way an incoming datagram fails lands in its own counter, so a call's statistics tell
/// a late network from an attack: a replay, a packet behind the replay window, a flipped
/// SRTCP E flag, a forged tag and a truncated packet are five different counts.
@Suite struct SRTPTransportStageCountingTests {
    static let ssrc: UInt32 = 0x5EED

    /// An RTP packet (`sequenceNumber`, 40 bytes of payload) protected by `stage`.
    static func protectedRTP(_ stage: SRTPTransportStage, sequenceNumber: UInt16) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 12 + 40 + SRTPSession.maximumTrailerLength)
        bytes[0] = 0x80
        bytes[1] = 111
        bytes[2] = UInt8(sequenceNumber >> 8)
        bytes[3] = UInt8(sequenceNumber & 0xFF)
        bytes[7] = UInt8(sequenceNumber & 0xFF)
        bytes[10] = UInt8(ssrc >> 8)
        bytes[11] = UInt8(ssrc & 0xFF)
        let length = try bytes.withUnsafeMutableBytes { try stage.protect($0, length: 52).count }
        return Array(bytes[0..<length])
    }

    /// A receiver report protected by `stage`.
    static func protectedRTCP(_ stage: SRTPTransportStage) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8 + SRTPSession.maximumRTCPTrailerLength)
        bytes[0] = 0x80
        bytes[1] = 201
        bytes[3] = 1
        bytes[6] = UInt8(ssrc >> 8)
        bytes[7] = UInt8(ssrc & 0xFF)
        let length = try bytes.withUnsafeMutableBytes { try stage.protectRTCP($0, length: 8).count }
        return Array(bytes[0..<length])
    }

    @Test func everyFailureIsCountedAsWhatItIs() throws {
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let alice = try SRTPTransportStage(sendingKey: aliceKey, receivingKey: bobKey)
        let bob = try SRTPTransportStage(sendingKey: bobKey, receivingKey: aliceKey)
        func deliver(_ datagram: [UInt8], rtcp: Bool = false) -> Bool {
            var copy = datagram
            return copy.withUnsafeMutableBytes { rtcp ? bob.unprotectRTCP($0) != nil : bob.unprotect($0) != nil }
        }
        var sent: [[UInt8]] = []
        for sequenceNumber in 0..<1_100 as Range<UInt16> {
            sent.append(try Self.protectedRTP(alice, sequenceNumber: sequenceNumber))
            #expect(deliver(sent.last!))
        }
        #expect(!deliver(sent[1_090]))  // already received, inside the window
        // 1,090 packets behind: older than the 1,024-packet window (a 21 s Pareto delay on
        // simulated class E did this).
        #expect(!deliver(sent[10]))
        var rtcp = try Self.protectedRTCP(alice)
        rtcp[8] &= 0x7F  // the E flag, after the 8-byte report
        #expect(!deliver(rtcp, rtcp: true))
        var forged = try Self.protectedRTP(alice, sequenceNumber: 1_100)
        forged[20] ^= 1
        #expect(!deliver(forged))
        #expect(!deliver(Array(sent[1_099].prefix(6))))
        let statistics = bob.statistics
        #expect(statistics.packetsUnprotected == 1_100)
        #expect(statistics.replays == 1)
        #expect(statistics.olderThanReplayWindow == 1)
        #expect(statistics.encryptionFlagMismatches == 1)
        #expect(statistics.authFailures == 1)
        #expect(statistics.malformed == 1)
        #expect(statistics.datagramsReceived == 1_105)
    }
}
