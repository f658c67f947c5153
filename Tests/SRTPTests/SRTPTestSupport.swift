// SPDX-License-Identifier: Apache-2.0
import Foundation
import SRTP
import TestSupport

/// One `vectors/srtp/*.txt` file: `name: hex-or-text` lines, `#` comments.
struct SRTPVector {
    let fields: [String: String]

    init(_ name: String) throws {
        let text = try String(contentsOf: VectorFiles.url("srtp/\(name)"), encoding: .utf8)
        var fields: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        self.fields = fields
    }

    func bytes(_ field: String) -> [UInt8]? { fields[field].flatMap { VectorFiles.bytes(hex: $0) } }

    var profile: SRTPProfile? { fields["profile"].flatMap { SRTPProfile(sdesName: $0) } }

    func keyingMaterial() throws -> SRTPKeyingMaterial {
        guard let profile, let key = bytes("key"), let salt = bytes("salt") else { throw VectorError.missingField }
        return try SRTPKeyingMaterial(profile: profile, key: key, salt: salt)
    }

    enum VectorError: Error { case missingField }
}

/// A 16-byte-aligned packet buffer with room for the largest SRTCP trailer, reused across
/// packets so hot loops do not allocate.
final class PacketBuffer {
    static let capacity = 1500 + SRTPSession.maximumRTCPTrailerLength
    let raw: UnsafeMutableRawBufferPointer
    var length = 0

    init() {
        raw = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.capacity, alignment: 16)
        raw.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit { raw.deallocate() }

    var bytes: [UInt8] { Array(raw[..<length]) }

    func load(_ packet: [UInt8]) {
        raw.copyBytes(from: packet)
        length = packet.count
    }

    /// Writes a 12-byte RTP header (version 2, payload type 111) and a payload of `payloadLength`
    /// bytes derived from the sequence number, without allocating.
    func writeRTP(sequenceNumber: UInt16, ssrc: UInt32, payloadLength: Int = 160) {
        raw[0] = 0x80
        raw[1] = 111
        store(sequenceNumber, at: 2)
        store(UInt32(sequenceNumber) &* 960, at: 4)
        store(ssrc, at: 8)
        for offset in 0..<payloadLength { raw[12 + offset] = UInt8(truncatingIfNeeded: Int(sequenceNumber) &+ offset) }
        length = 12 + payloadLength
    }

    /// Writes a minimal RTCP receiver report (8-byte header + one report block) for `ssrc`.
    func writeRTCP(ssrc: UInt32) {
        raw[0] = 0x81
        raw[1] = 201
        store(UInt16(7), at: 2)
        store(ssrc, at: 4)
        for offset in 8..<32 { raw[offset] = UInt8(offset) }
        length = 32
    }

    /// Big-endian store, byte by byte (no generic unaligned store: it allocates in -Onone).
    private func store(_ value: UInt16, at offset: Int) {
        raw[offset] = UInt8(value >> 8)
        raw[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    private func store(_ value: UInt32, at offset: Int) {
        store(UInt16(value >> 16), at: offset)
        store(UInt16(truncatingIfNeeded: value), at: offset + 2)
    }

    var sequenceNumber: UInt16 { UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)) }

    /// True if the buffer holds exactly what `writeRTP` writes for these values.
    func holdsRTP(sequenceNumber: UInt16, ssrc: UInt32, payloadLength: Int = 160) -> Bool {
        guard length == 12 + payloadLength, self.sequenceNumber == sequenceNumber,
              UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self)) == ssrc else { return false }
        for offset in 0..<payloadLength where raw[12 + offset] != UInt8(truncatingIfNeeded: Int(sequenceNumber) &+ offset) {
            return false
        }
        return true
    }
}


/// Fixed, deterministic keying material for `profile` (bytes 0, 1, 2, … then salt 0xa0, …).
func fixedKeyingMaterial(_ profile: SRTPProfile) throws -> SRTPKeyingMaterial {
    try SRTPKeyingMaterial(
        profile: profile,
        key: (0..<profile.masterKeyLength).map { UInt8($0) },
        salt: (0..<profile.masterSaltLength).map { UInt8(0xa0 + $0) })
}

/// Sends `count` packets of `ssrc` through `sender`, starting at sequence `first`, handing
/// each protected packet to `deliver`.
func sendPackets(
    _ sender: SRTPSession, ssrc: UInt32, from first: Int, count: Int, buffer: PacketBuffer,
    payloadLength: Int = 20, _ deliver: (PacketBuffer, UInt16) throws -> Void
) throws {
    for packet in first..<(first + count) {
        let sequenceNumber = UInt16(truncatingIfNeeded: packet)
        buffer.writeRTP(sequenceNumber: sequenceNumber, ssrc: ssrc, payloadLength: payloadLength)
        buffer.length = try sender.protect(buffer.raw, length: buffer.length)
        try deliver(buffer, sequenceNumber)
    }
}
