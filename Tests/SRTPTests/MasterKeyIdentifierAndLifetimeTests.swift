// SPDX-License-Identifier: Apache-2.0
import SRTP
import Testing

/// Issue 16, "Hardening": SDES MKIs and lifetimes were parsed but not given to libsrtp, so a
/// peer sending an MKI failed authentication on every packet, and a lifetime was never
/// enforced. Both are now applied; SRTCP packets whose E flag disagrees with the policy are
/// reported as such rather than as malformed.
@Suite struct MasterKeyIdentifierAndLifetimeTests {
    static let ssrc: UInt32 = 0x0BAD_CAFE
    static let base64 = SDESCryptoAttributeTests.base64
    static let tagLength = SRTPProfile.aesCM128HmacSha1_80.rtpAuthTagLength

    /// A packet as a peer with MKI `1:4` sends it: RFC 3711 §3.1 puts the MKI (not
    /// authenticated) between the encrypted payload and the tag, so it is our MKI-less
    /// packet with the four bytes inserted there.
    @Test func packetsFromAPeerWithAnMKIAreAccepted() throws {
        let plainKeys = try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)").keyingMaterial
        let peerLine = try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)|2^31|1:4")
        #expect(peerLine.keyingMaterial.masterKeyIdentifier == [0, 0, 0, 1])
        #expect(peerLine.keyingMaterial.lifetimePackets == 1 << 31)

        let buffer = PacketBuffer()
        buffer.writeRTP(sequenceNumber: 7, ssrc: Self.ssrc)
        buffer.length = try SRTPSession(direction: .outbound, keyingMaterial: plainKeys).protect(buffer.raw, length: buffer.length)
        let withoutMKI = buffer.bytes
        let tagStart = withoutMKI.count - Self.tagLength
        let fromPeer = Array(withoutMKI[..<tagStart]) + [0, 0, 0, 1] + Array(withoutMKI[tagStart...])

        // Our sender with that keying material writes exactly the peer's packet.
        buffer.writeRTP(sequenceNumber: 7, ssrc: Self.ssrc)
        buffer.length = try SRTPSession(direction: .outbound, keyingMaterial: peerLine.keyingMaterial).protect(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == fromPeer)

        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: peerLine.keyingMaterial)
        buffer.load(fromPeer)
        buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
        #expect(buffer.holdsRTP(sequenceNumber: 7, ssrc: Self.ssrc))

        // Another key's identifier, or none, is refused, typed.
        buffer.writeRTP(sequenceNumber: 8, ssrc: Self.ssrc)
        buffer.length = try SRTPSession(direction: .outbound, keyingMaterial: plainKeys).protect(buffer.raw, length: buffer.length)
        let next = buffer.bytes
        let otherMKI = Array(next[..<(next.count - Self.tagLength)]) + [0, 0, 0, 2] + Array(next[(next.count - Self.tagLength)...])
        buffer.load(otherMKI)
        #expect(throws: SRTPError.unknownMasterKeyIdentifier) { _ = try receiver.unprotect(buffer.raw, length: buffer.length) }
        buffer.load(next)
        #expect(throws: SRTPError.self) { _ = try receiver.unprotect(buffer.raw, length: buffer.length) }
    }

    /// The same for SRTCP: the MKI sits between the E flag/index word and the tag. Under the
    /// _32 suites libsrtp 2.5 itself looks for it 6 bytes early (it uses the 4-byte RTP tag's
    /// length); the session checks and removes it itself there.
    @Test(arguments: [SRTPProfile.aesCM128HmacSha1_80, .aesCM128HmacSha1_32, .aes256CMHmacSha1_32])
    func srtcpFromAPeerWithAnMKIIsAccepted(profile: SRTPProfile) throws {
        let plainKeys = try SRTPKeyingMaterial(profile: profile, keyAndSalt: [UInt8](repeating: 0x5A, count: profile.keyingMaterialLength))
        let peerKeys = try plainKeys.with(masterKeyIdentifier: [1, 2], lifetimePackets: nil)
        let buffer = PacketBuffer()
        buffer.writeRTCP(ssrc: Self.ssrc)
        let plain = buffer.bytes
        buffer.length = try SRTPSession(direction: .outbound, keyingMaterial: plainKeys).protectRTCP(buffer.raw, length: buffer.length)
        let withoutMKI = buffer.bytes
        let tagStart = withoutMKI.count - profile.rtcpAuthTagLength
        let fromPeer = Array(withoutMKI[..<tagStart]) + [1, 2] + Array(withoutMKI[tagStart...])

        buffer.writeRTCP(ssrc: Self.ssrc)
        buffer.length = try SRTPSession(direction: .outbound, keyingMaterial: peerKeys).protectRTCP(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == fromPeer)  // our sender writes the same layout

        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: peerKeys)
        buffer.load(fromPeer)
        buffer.length = try receiver.unprotectRTCP(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == plain)
        var otherMKI = fromPeer
        otherMKI[tagStart + 1] = 3
        buffer.load(otherMKI)
        #expect(throws: SRTPError.unknownMasterKeyIdentifier) { _ = try receiver.unprotectRTCP(buffer.raw, length: buffer.length) }
        buffer.load(Array(fromPeer[..<13]))
        #expect(throws: SRTPError.self) { _ = try receiver.unprotectRTCP(buffer.raw, length: buffer.length) }
    }

    /// Every profile round-trips RTP and RTCP with an MKI, each packet longer by its length.
    @Test(arguments: SRTPProfile.allCases)
    func everyProfileRoundTripsWithAnMKI(profile: SRTPProfile) throws {
        let keys = try SRTPKeyingMaterial.random(profile: profile).with(masterKeyIdentifier: [9, 8, 7], lifetimePackets: nil)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        let buffer = PacketBuffer()
        for sequenceNumber in UInt16(1)...5 {
            buffer.writeRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc)
            let plainLength = buffer.length
            buffer.length = try sender.protect(buffer.raw, length: buffer.length)
            #expect(buffer.length == plainLength + 3 + profile.rtpAuthTagLength)
            buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
            #expect(buffer.holdsRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc))
        }
        buffer.writeRTCP(ssrc: Self.ssrc)
        let plain = buffer.bytes
        buffer.length = try sender.protectRTCP(buffer.raw, length: buffer.length)
        #expect(buffer.length == plain.count + 4 + 3 + profile.rtcpAuthTagLength)
        buffer.length = try receiver.unprotectRTCP(buffer.raw, length: buffer.length)
        #expect(buffer.bytes == plain)
    }

    /// A lifetime of 2^2 packets: the sender protects four (SRTP and SRTCP together) and
    /// refuses the fifth; the receiver accepts four and refuses the fifth, typed.
    @Test func lifetimeStopsTheKeyAfterThatManyPackets() throws {
        let line = try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)|2^2")
        let keys = line.keyingMaterial
        #expect(keys.lifetimePackets == 4)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: keys)
        #expect(sender.lifetimePackets == 4)
        let buffer = PacketBuffer()
        var sent: [[UInt8]] = []
        for sequenceNumber in UInt16(1)...3 {
            buffer.writeRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc)
            buffer.length = try sender.protect(buffer.raw, length: buffer.length)
            sent.append(buffer.bytes)
        }
        buffer.writeRTCP(ssrc: Self.ssrc)
        _ = try sender.protectRTCP(buffer.raw, length: buffer.length)
        #expect(sender.packetsUnderKey == 4)
        buffer.writeRTP(sequenceNumber: 4, ssrc: Self.ssrc)
        #expect(throws: SRTPError.keyLifetimeExpired) { _ = try sender.protect(buffer.raw, length: buffer.length) }
        buffer.writeRTCP(ssrc: Self.ssrc)
        #expect(throws: SRTPError.keyLifetimeExpired) { _ = try sender.protectRTCP(buffer.raw, length: buffer.length) }

        // A sender that ignores the lifetime: the receiver stops after four all the same.
        let unlimited = try SRTPSession(direction: .outbound, keyingMaterial: keys.with(masterKeyIdentifier: nil, lifetimePackets: nil))
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        for sequenceNumber in UInt16(1)...5 {
            buffer.writeRTP(sequenceNumber: sequenceNumber, ssrc: Self.ssrc)
            buffer.length = try unlimited.protect(buffer.raw, length: buffer.length)
            if sequenceNumber <= 4 {
                buffer.length = try receiver.unprotect(buffer.raw, length: buffer.length)
            } else {
                #expect(throws: SRTPError.keyLifetimeExpired) { _ = try receiver.unprotect(buffer.raw, length: buffer.length) }
            }
        }
        #expect(receiver.packetsUnderKey == 4)
    }

    /// Lifetimes and MKIs that cannot be applied are refused where they are given.
    @Test func unusableLifetimesAndMKIsAreRefused() throws {
        #expect(throws: SDESError.invalidLifetime("0")) { try SDESCryptoAttribute(parsing: "1 AES_CM_128_HMAC_SHA1_80 inline:\(Self.base64)|0") }
        let keys = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        #expect(throws: SRTPError.self) { try keys.with(masterKeyIdentifier: nil, lifetimePackets: 0) }
        #expect(throws: SRTPError.self) { try keys.with(masterKeyIdentifier: [], lifetimePackets: nil) }
        #expect(throws: SRTPError.self) { try keys.with(masterKeyIdentifier: [UInt8](repeating: 1, count: 129), lifetimePackets: nil) }
        // An MKI of 128 bytes (libsrtp's most) works.
        let longest = try keys.with(masterKeyIdentifier: [UInt8](repeating: 0, count: 127) + [5], lifetimePackets: nil)
        let buffer = PacketBuffer()
        buffer.writeRTP(sequenceNumber: 1, ssrc: Self.ssrc)
        buffer.length = try SRTPSession(direction: .outbound, keyingMaterial: longest).protect(buffer.raw, length: buffer.length)
        buffer.length = try SRTPSession(direction: .inbound, keyingMaterial: longest).unprotect(buffer.raw, length: buffer.length)
        #expect(buffer.holdsRTP(sequenceNumber: 1, ssrc: Self.ssrc))
        #expect(try SDESCryptoAttribute(tag: 1, keyingMaterial: longest).masterKeyIdentifier?.description == "5:128")
    }

    /// An attribute built to send signals the keying material's MKI and lifetime, and one
    /// given to it replaces them: line and keys agree either way.
    @Test func builtAttributesAndTheirKeysAgree() throws {
        let keys = try SRTPKeyingMaterial.random(profile: .aeadAES128GCM).with(masterKeyIdentifier: [0, 0, 1, 2], lifetimePackets: 1 << 31)
        let inherited = try SDESCryptoAttribute(tag: 1, keyingMaterial: keys)
        #expect(inherited.attributeValue.hasSuffix("|2^31|258:4"))
        #expect(inherited.keyingMaterial == keys)
        #expect(try SDESCryptoAttribute(parsing: inherited.attributeLine).keyingMaterial == keys)

        let replaced = try SDESCryptoAttribute(tag: 2, keyingMaterial: keys, lifetime: .packets(1_000),
                                               masterKeyIdentifier: try SDESMasterKeyIdentifier(value: 3, length: 1))
        #expect(replaced.attributeValue.hasSuffix("|1000|3:1"))
        #expect(replaced.keyingMaterial.masterKeyIdentifier == [3] && replaced.keyingMaterial.lifetimePackets == 1_000)
        #expect(try SDESCryptoAttribute(parsing: replaced.attributeLine) == replaced)
    }

    /// An SRTCP packet whose E flag was flipped is refused as what it is, not as a malformed
    /// packet: under AES-CM libsrtp compares the flag with the policy before the tag
    /// (`.encryptionFlagMismatch`); under AEAD the flag is authenticated data and the tag
    /// check fails first (`.authenticationFailed`).
    @Test(arguments: [(SRTPProfile.aesCM128HmacSha1_80, SRTPError.encryptionFlagMismatch), (.aesCM128HmacSha1_32, .encryptionFlagMismatch),
                      (.aeadAES128GCM, .authenticationFailed)])
    func flippedEncryptionFlagIsReportedAsSuch(profile: SRTPProfile, expected: SRTPError) throws {
        let keys = SRTPKeyingMaterial.random(profile: profile)
        let buffer = PacketBuffer()
        buffer.writeRTCP(ssrc: Self.ssrc)
        let plainLength = buffer.length
        buffer.length = try SRTPSession(direction: .outbound, keyingMaterial: keys).protectRTCP(buffer.raw, length: buffer.length)
        var packet = buffer.bytes
        // AES-CM: RTCP, E flag and index, tag. AEAD: ciphertext with its tag, then E and index.
        let flag = [.aeadAES128GCM, .aeadAES256GCM].contains(profile) ? plainLength + profile.rtcpAuthTagLength : plainLength
        #expect(packet[flag] & 0x80 == 0x80)  // E: encrypted
        packet[flag] &= 0x7F
        buffer.load(packet)
        let receiver = try SRTPSession(direction: .inbound, keyingMaterial: keys)
        #expect(throws: expected) { _ = try receiver.unprotectRTCP(buffer.raw, length: buffer.length) }
        #expect(receiver.packetsUnderKey == 0)
    }
}
