// SPDX-License-Identifier: Apache-2.0
import SRTP
import Testing

@Suite struct SRTPSessionTests {
    static let ssrc: UInt32 = 0x1234_5678

    /// Every profile is accepted by Debian's libsrtp2 (NSS backend) and round-trips RTP and RTCP.
    @Test(arguments: SRTPProfile.allCases)
    func roundTrip(profile: SRTPProfile) throws {
        let keys = SRTPKeyingMaterial.random(profile: profile)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        for sequenceNumber in UInt16(100)..<120 {
            buffer.writeRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc)
            let plainLength = buffer.length
            buffer.length = try sender.protect(buffer.raw, length: buffer.length)
            #expect(buffer.length == plainLength + profile.rtpAuthTagLength)
            #expect(!buffer.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc))
            buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
            #expect(buffer.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc))
        }
        for _ in 0..<3 {
            buffer.writeRTCP(ssrc: Self.ssrc)
            let plain = buffer.bytes
            buffer.length = try sender.protectRTCP(buffer.raw, length: buffer.length)
            #expect(buffer.length == plain.count + 4 + profile.rtcpAuthTagLength)
            buffer.length = try receiver.unprotectRTCP(buffer.raw, length: buffer.length)
            #expect(buffer.bytes == plain)
        }
    }

    @Test func profileParameters() {
        for profile in SRTPProfile.allCases {
            #expect(SRTPProfile(sdesName: profile.sdesName) == profile)
            #expect(profile.keyingMaterialLength == profile.masterKeyLength + profile.masterSaltLength)
        }
        #expect(SRTPProfile.aes256CMHmacSha1_80.sdesName == "AES_256_CM_HMAC_SHA1_80")
        #expect(SRTPProfile.aeadAES128GCM.masterSaltLength == 12)
        #expect(SRTPProfile.aesCM128HmacSha1_32.rtpAuthTagLength == 4)
        #expect(SRTPProfile.aesCM128HmacSha1_32.rtcpAuthTagLength == 10)
    }

    @Test(arguments: [SRTPProfile.aesCM128HmacSha1_80, .aesCM128HmacSha1_32, .aeadAES128GCM])
    func tamperedPacketFailsAuthentication(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        buffer.writeRTP(sequenceNumber: 1, ssrc: Self.ssrc)
        buffer.length = try sender.protect(buffer.raw, length: buffer.length)
        let packet = buffer.bytes

        // One payload bit, one tag bit, one header bit.
        for byteIndex in [20, packet.count - 1, 5] {
            var tampered = packet
            tampered[byteIndex] ^= 0x01
            buffer.load(tampered)
            #expect(throws: SRTPError.authenticationFailed) {
                _ = try receiver.unprotect(buffer.raw, length: buffer.length)
            }
        }
        // The genuine packet still passes afterwards (failures do not poison the stream).
        buffer.load(packet)
        buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
        #expect(buffer.holdsRTP(sequenceNumber: 1, ssrc: Self.ssrc))

        // SRTCP too.
        buffer.writeRTCP(ssrc: Self.ssrc)
        buffer.length = try sender.protectRTCP(buffer.raw, length: buffer.length)
        var rtcp = buffer.bytes
        rtcp[12] ^= 0x80
        buffer.load(rtcp)
        #expect(throws: SRTPError.authenticationFailed) {
            _ = try receiver.unprotectRTCP(buffer.raw, length: buffer.length)
        }
    }

    @Test func wrongKeyFailsAuthentication() throws {
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: .random(profile: .aesCM128HmacSha1_80))
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: .random(profile: .aesCM128HmacSha1_80))
        let buffer = PacketBuffer()
        buffer.writeRTP(sequenceNumber: 9, ssrc: Self.ssrc)
        buffer.length = try sender.protect(buffer.raw, length: buffer.length)
        #expect(throws: SRTPError.authenticationFailed) {
            _ = try receiver.unprotect(buffer.raw, length: buffer.length)
        }
    }

    @Test(arguments: [SRTPProfile.aesCM128HmacSha1_80, .aeadAES128GCM])
    func replayedPacketIsRejected(profile: SRTPProfile) throws {
        let keys = try fixedKeyingMaterial(profile)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys, replayWindowSize: 64)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys, replayWindowSize: 64)
        let buffer = PacketBuffer()
        var protected: [[UInt8]] = []
        try sendPackets(sender, ssrc: Self.ssrc, from: 0, count: 200, buffer: buffer) { packet, _ in
            protected.append(packet.bytes)
            packet.length = try receiver.unprotect(packet.raw, length: packet.length)
        }
        // Inside the window: already seen.
        buffer.load(protected[190])
        #expect(throws: SRTPError.replay) { _ = try receiver.unprotect(buffer.raw, length: buffer.length) }
        // Behind the window: too old.
        buffer.load(protected[10])
        #expect(throws: SRTPError.olderThanReplayWindow) { _ = try receiver.unprotect(buffer.raw, length: buffer.length) }

        // SRTCP replay.
        buffer.writeRTCP(ssrc: Self.ssrc)
        buffer.length = try sender.protectRTCP(buffer.raw, length: buffer.length)
        let rtcp = buffer.bytes
        buffer.length = try receiver.unprotectRTCP(buffer.raw, length: buffer.length)
        buffer.load(rtcp)
        #expect(throws: SRTPError.replay) { _ = try receiver.unprotectRTCP(buffer.raw, length: buffer.length) }

        // The sender refuses to reuse a sequence number (keystream reuse).
        buffer.writeRTP(sequenceNumber: 150, ssrc: Self.ssrc)
        #expect(throws: SRTPError.replay) { _ = try sender.protect(buffer.raw, length: buffer.length) }
    }

    @Test func bufferAndParameterChecks() throws {
        let keys = try fixedKeyingMaterial(.aesCM128HmacSha1_80)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        buffer.writeRTP(sequenceNumber: 1, ssrc: Self.ssrc)

        let tight = UnsafeMutableRawBufferPointer(rebasing: buffer.raw[..<(buffer.length + SRTPSession.maximumTrailerLength - 1)])
        #expect(throws: SRTPError.bufferTooSmall) { _ = try sender.protect(tight, length: buffer.length) }
        let exact = UnsafeMutableRawBufferPointer(rebasing: buffer.raw[..<(buffer.length + SRTPSession.maximumTrailerLength)])
        _ = try sender.protect(exact, length: buffer.length)

        buffer.writeRTCP(ssrc: Self.ssrc)
        let tightRTCP = UnsafeMutableRawBufferPointer(rebasing: buffer.raw[..<(buffer.length + SRTPSession.maximumTrailerLength)])
        #expect(throws: SRTPError.bufferTooSmall) { _ = try sender.protectRTCP(tightRTCP, length: buffer.length) }

        #expect(throws: SRTPError.bufferTooSmall) { _ = try receiver.unprotect(buffer.raw, length: buffer.raw.count + 1) }
        #expect(throws: SRTPError.malformedPacket) { _ = try receiver.unprotect(buffer.raw, length: 11) }
        #expect(throws: SRTPError.malformedPacket) { _ = try receiver.unprotectRTCP(buffer.raw, length: 7) }

        // Wrong direction.
        #expect(throws: SRTPError.self) { _ = try receiver.protect(buffer.raw, length: 40) }
        #expect(throws: SRTPError.self) { _ = try sender.unprotect(buffer.raw, length: 40) }

        // Replay window limits.
        #expect(throws: SRTPError.self) { _ = try SRTPSession(direction: .inbound, keyingMaterial: keys, replayWindowSize: 32) }
        #expect(throws: SRTPError.self) { _ = try SRTPSession(direction: .inbound, keyingMaterial: keys, replayWindowSize: 0x8000) }
    }

    @Test func keyingMaterialValidationAndRandomness() throws {
        #expect(throws: SRTPError.self) { _ = try SRTPKeyingMaterial(profile: .aesCM128HmacSha1_80, key: [UInt8](repeating: 0, count: 15), salt: [UInt8](repeating: 0, count: 14)) }
        #expect(throws: SRTPError.self) { _ = try SRTPKeyingMaterial(profile: .aeadAES128GCM, key: [UInt8](repeating: 0, count: 16), salt: [UInt8](repeating: 0, count: 14)) }
        #expect(throws: SRTPError.self) { _ = try SRTPKeyingMaterial(profile: .aes256CMHmacSha1_80, keyAndSalt: [UInt8](repeating: 0, count: 30)) }
        for profile in SRTPProfile.allCases {
            let a = SRTPKeyingMaterial.random(profile: profile)
            let b = SRTPKeyingMaterial.random(profile: profile)
            #expect(a.masterKey.count == profile.masterKeyLength && a.masterSalt.count == profile.masterSaltLength)
            #expect(a != b)
            #expect(a.description.contains("redacted"))
        }
    }

    /// Two SSRCs through one session get independent streams (libsrtp clones one per SSRC).
    @Test func severalSSRCsShareTheKey() throws {
        let keys = try fixedKeyingMaterial(.aesCM128HmacSha1_80)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        for sequenceNumber in UInt16(0)..<10 {
            for ssrc: UInt32 in [1, 2] {
                buffer.writeRTP(sequenceNumber: sequenceNumber &+ UInt16(ssrc) * 1000, ssrc: ssrc)
                buffer.length = try sender.protect(buffer.raw, length: buffer.length)
                buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
            }
        }
        #expect(receiver.streamState(ssrc: 1) == SRTPStreamState(ssrc: 1, rolloverCounter: 0, highestSequenceNumber: 1009))
        #expect(receiver.streamState(ssrc: 2) == SRTPStreamState(ssrc: 2, rolloverCounter: 0, highestSequenceNumber: 2009))
        #expect(Set(sender.streamStates) == Set(receiver.streamStates))
        #expect(receiver.streamState(ssrc: 3) == nil)
    }
}
