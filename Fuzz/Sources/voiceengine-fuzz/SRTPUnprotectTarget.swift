// SPDX-License-Identifier: Apache-2.0
import SRTP

/// `SRTPSession.unprotect` / `unprotectRTCP` under a fixed key, every profile, with and
/// without an MKI, on two kinds of input:
/// - raw: the bytes as they come, as SRTP or SRTCP;
/// - a program: packets built from the input are protected by the peer's outbound session,
///   then sent unchanged, with a byte flipped, truncated, extended, or replayed. Unchanged
///   packets must come back byte for byte; changed or replayed ones must never authenticate.
enum SRTPUnprotectTarget {
    static let target = FuzzTarget(name: "srtp", run: run, seeds: seeds)

    static let keyAndSalt: [UInt8] = (0..<46).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

    static func keyingMaterial(_ profile: SRTPProfile, mki: Bool) -> SRTPKeyingMaterial {
        try! SRTPKeyingMaterial(profile: profile, keyAndSalt: Array(keyAndSalt[0..<profile.keyingMaterialLength]),
                                masterKeyIdentifier: mki ? [0, 0, 0, 1] : nil)
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var input = FuzzInput(bytes)
        let profile = SRTPProfile.allCases[input.choice(SRTPProfile.allCases.count)]
        let flags = input.byte()
        let mki = flags & 1 != 0
        let rtcp = flags & 2 != 0
        let material = keyingMaterial(profile, mki: mki)
        let inbound = try! SRTPSession(direction: .inbound, keyingMaterial: material)
        if flags & 4 == 0 {
            let packet = input.rest()
            var buffer = [UInt8](packet)
            buffer.withUnsafeMutableBytes { buffer in
                let length = buffer.count
                if rtcp {
                    if let out = try? inbound.unprotectRTCP(buffer, length: length) {
                        check(out >= 8 && out <= length, "SRTCP unprotect returned \(out) of \(length)")
                    }
                } else if let out = try? inbound.unprotect(buffer, length: length) {
                    check(out >= 12 && out <= length, "SRTP unprotect returned \(out) of \(length)")
                }
            }
            return
        }
        let outbound = try! SRTPSession(direction: .outbound, keyingMaterial: material)
        var sequence = input.uint16()
        let ssrc = input.uint32()
        var timestamp = input.uint32()
        // The last packet the receiver accepted (replaying it must fail), and whether the
        // sender's sequence wrapped before the receiver accepted anything: then the receiver
        // cannot know the rollover counter, and an unchanged packet may rightly fail.
        var previous: [UInt8]? = nil
        var acceptedAny = false
        var wrappedBeforeFirstAccept = false
        let count = 1 + input.choice(8)
        for _ in 0..<count where !input.isAtEnd {
            let before = sequence
            sequence &+= UInt16(1 + input.choice(16))
            if sequence < before && !acceptedAny { wrappedBeforeFirstAccept = true }
            timestamp &+= 960
            let payload = input.bytes(maximum: 160)
            var plain: [UInt8]
            if rtcp {
                // A receiver report with the payload as its profile extension (length in words).
                let words = payload.count / 4
                plain = [0x80, 201, 0, UInt8(1 + words), UInt8(ssrc >> 24), UInt8(truncatingIfNeeded: ssrc >> 16),
                         UInt8(truncatingIfNeeded: ssrc >> 8), UInt8(truncatingIfNeeded: ssrc)] + payload.prefix(words * 4)
            } else {
                plain = [0x80, 111, UInt8(sequence >> 8), UInt8(truncatingIfNeeded: sequence),
                         UInt8(timestamp >> 24), UInt8(truncatingIfNeeded: timestamp >> 16),
                         UInt8(truncatingIfNeeded: timestamp >> 8), UInt8(truncatingIfNeeded: timestamp),
                         UInt8(ssrc >> 24), UInt8(truncatingIfNeeded: ssrc >> 16),
                         UInt8(truncatingIfNeeded: ssrc >> 8), UInt8(truncatingIfNeeded: ssrc)] + Array(payload)
            }
            var wire = plain + [UInt8](repeating: 0, count: SRTPSession.maximumRTCPTrailerLength)
            let protectedLength = wire.withUnsafeMutableBytes { buffer in
                if rtcp { return try? outbound.protectRTCP(buffer, length: plain.count) }
                return try? outbound.protect(buffer, length: plain.count)
            }
            guard let protectedLength else {
                check(false, "protect refused a well-formed packet of \(plain.count) bytes")
                return
            }
            wire.removeLast(wire.count - protectedLength)
            let original = wire
            var changed = false
            switch input.choice(5) {
            case 0:
                break
            case 1:
                let position = input.choice(wire.count)
                let mask = input.byte() | 1
                wire[position] ^= mask
                changed = true
            case 2:
                wire.removeLast(1 + input.choice(wire.count))
                changed = true
            case 3:
                wire += Array(input.bytes(maximum: 32))
                changed = wire.count != original.count
            default:
                if let previous { wire = previous; changed = true }
            }
            var received = wire
            let result = received.withUnsafeMutableBytes { buffer in
                Result { () throws(SRTPError) -> Int in
                    if rtcp { return try inbound.unprotectRTCP(buffer, length: buffer.count) }
                    return try inbound.unprotect(buffer, length: buffer.count)
                }
            }
            switch result {
            case .success(let length):
                check(!changed, "a changed or replayed \(rtcp ? "SRTCP" : "SRTP") packet authenticated under \(profile)")
                check(length == plain.count && Array(received[0..<length]) == plain, "unprotect did not restore the packet")
                acceptedAny = true
                previous = original
            case .failure(let error):
                check(changed || (wrappedBeforeFirstAccept && !rtcp), "an unchanged \(rtcp ? "SRTCP" : "SRTP") packet failed under \(profile) (MKI \(mki)): \(error)")
            }
        }
    }

    static func seeds() throws -> [[UInt8]] {
        var seeds: [[UInt8]] = []
        // Programs: profile, flags (program bit, MKI, RTCP), sequence, SSRC, timestamp, then
        // per packet: step, payload length and bytes, mutation.
        for (profile, flags) in [(0, 4), (1, 5), (4, 6), (5, 7)] as [(UInt8, UInt8)] {
            seeds.append([0, profile, flags, 0xFF, 0xF0, 0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 0, 0, 2,
                          0, 1, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0,
                          0, 2, 0, 4, 9, 9, 9, 9, 0, 1, 0, 5, 0x40])
        }
        // A raw packet: the libsrtp self-test AES_CM_128_HMAC_SHA1_80 input shape (not its key).
        let material = keyingMaterial(.aesCM128HmacSha1_80, mki: false)
        let outbound = try SRTPSession(direction: .outbound, keyingMaterial: material)
        var packet: [UInt8] = [0x80, 0x0F, 0x12, 0x34, 0xDE, 0xCA, 0xFB, 0xAD, 0xCA, 0xFE, 0xBA, 0xBE]
            + [UInt8](repeating: 0xAB, count: 16) + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let length = try packet.withUnsafeMutableBytes { try outbound.protect($0, length: 28) }
        seeds.append([0, 0, 0] + packet[0..<length])
        return seeds
    }
}
