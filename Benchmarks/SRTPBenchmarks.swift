// SPDX-License-Identifier: Apache-2.0
import CBaseline
import SRTP

/// SRTP protect and unprotect per packet: the Swift API against the same libsrtp calls made
/// from C, for AES_CM_128_HMAC_SHA1_80 and AEAD_AES_128_GCM at 60/160/320/1200-byte payloads.
struct SRTPBenchmarks {
    static let group = "srtp"
    static let packetsPerRound = 5_000
    static let profiles: [SRTPProfile] = [.aesCM128HmacSha1_80, .aeadAES128GCM]
    static let payloadSizes = [60, 160, 320, 1_200]

    let comparison: Comparison
    let report: Report

    func run() throws {
        report.beginGroup(Self.group, baseline: "libsrtp 2.5 called from C")
        let work = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 8)
        defer { work.deallocate() }
        for profile in Self.profiles {
            let key = SRTPKeyingMaterial.random(profile: profile)
            guard let profileIndex = SRTPProfile.allCases.firstIndex(of: profile) else { throw BenchmarkError.setup("profile") }
            for payloadSize in Self.payloadSizes {
                // RTP header (V=2, PT 111, SSRC 0xcafebabe) and a fixed payload.
                let plaintext: [UInt8] = [0x80, 0x6f, 0, 0, 0, 0, 0, 1, 0xca, 0xfe, 0xba, 0xbe] + (0..<payloadSize).map { UInt8($0 & 0xff) }
                let name = "\(profile.sdesName) \(payloadSize)B"
                if comparison.includes("protect " + name) {
                    try protect(name: name, profileIndex: profileIndex, key: key, plaintext: plaintext, work: work)
                }
                if comparison.includes("unprotect " + name) {
                    try unprotect(name: name, profileIndex: profileIndex, key: key, plaintext: plaintext, work: work)
                }
            }
        }
    }

    private func protect(name: String, profileIndex: Int, key: SRTPKeyingMaterial, plaintext: [UInt8], work: UnsafeMutableRawBufferPointer) throws {
        let ours = try SRTPSession(direction: .outbound, keyingMaterial: key)
        guard let theirs = key.keyAndSalt.withUnsafeBufferPointer({ cbase_srtp_create(Int32(profileIndex), $0.baseAddress, 1) }) else {
            throw BenchmarkError.setup("C SRTP session")
        }
        defer { cbase_srtp_destroy(theirs) }
        var ourSequence: UInt16 = 0
        var theirSequence: UInt16 = 0
        let count = Self.packetsPerRound
        let result = plaintext.withUnsafeBytes { plaintext in
            comparison.run(operations: count, ours: {
                for _ in 0..<count {
                    work.copyMemory(from: plaintext)
                    work[2] = UInt8(ourSequence >> 8)
                    work[3] = UInt8(ourSequence & 0xff)
                    ourSequence &+= 1
                    do { _ = try ours.protect(work, length: plaintext.count) } catch { fatalError("protect: \(error)") }
                }
            }, baseline: {
                let status = cbase_srtp_protect_loop(theirs, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(plaintext.count),
                                                     Int32(count), theirSequence, work.baseAddress!.assumingMemoryBound(to: UInt8.self))
                precondition(status == 0, "C protect failed: \(status)")
                theirSequence &+= UInt16(count)
            })
        }
        report.add(group: Self.group, name: "protect " + name, unit: "us/packet", baseline: "libsrtp from C", result: result)
    }

    private func unprotect(name: String, profileIndex: Int, key: SRTPKeyingMaterial, plaintext: [UInt8], work: UnsafeMutableRawBufferPointer) throws {
        // The packets both sides unprotect, protected once up front, laid out `stride` apart.
        let count = Self.packetsPerRound
        let stride = plaintext.count + SRTPSession.maximumTrailerLength
        var protected = [UInt8](repeating: 0, count: stride * count)
        var lengths = [Int32](repeating: 0, count: count)
        let sender = try SRTPSession(direction: .outbound, keyingMaterial: key)
        for index in 0..<count {
            try protected.withUnsafeMutableBytes { all in
                let slot = UnsafeMutableRawBufferPointer(rebasing: all[(index * stride)..<((index + 1) * stride)])
                plaintext.withUnsafeBytes { slot.copyMemory(from: $0) }
                slot[2] = UInt8(index >> 8)
                slot[3] = UInt8(index & 0xff)
                lengths[index] = Int32(try sender.protect(slot, length: plaintext.count))
            }
        }
        var ours = try SRTPSession(direction: .inbound, keyingMaterial: key)
        var theirs: OpaquePointer? = nil
        defer { if let theirs { cbase_srtp_destroy(theirs) } }
        let result = protected.withUnsafeBytes { packets in
            lengths.withUnsafeBufferPointer { lengths in
                // Each round needs fresh receivers (the packets would be replays otherwise); the
                // first packet creates the SSRC's stream and is unprotected outside the timing.
                comparison.run(operations: count - 1, prepare: {
                    do {
                        ours = try SRTPSession(direction: .inbound, keyingMaterial: key)
                        work.copyMemory(from: UnsafeRawBufferPointer(rebasing: packets[0..<Int(lengths[0])]))
                        _ = try ours.unprotect(work, length: Int(lengths[0]))
                    } catch { fatalError("unprotect set-up: \(error)") }
                    if let theirs { cbase_srtp_destroy(theirs) }
                    theirs = key.keyAndSalt.withUnsafeBufferPointer { cbase_srtp_create(Int32(profileIndex), $0.baseAddress, 0) }
                    precondition(cbase_srtp_unprotect_loop(theirs, packets.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(stride),
                                                           lengths.baseAddress, 1, work.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0)
                }, ours: {
                    for index in 1..<count {
                        let length = Int(lengths[index])
                        work.copyMemory(from: UnsafeRawBufferPointer(rebasing: packets[(index * stride)..<(index * stride + length)]))
                        do { _ = try ours.unprotect(work, length: length) } catch { fatalError("unprotect: \(error)") }
                    }
                }, baseline: {
                    let status = cbase_srtp_unprotect_loop(theirs, packets.baseAddress!.assumingMemoryBound(to: UInt8.self) + stride, Int32(stride),
                                                           lengths.baseAddress! + 1, Int32(count - 1), work.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    precondition(status == 0, "C unprotect failed: \(status)")
                })
            }
        }
        report.add(group: Self.group, name: "unprotect " + name, unit: "us/packet", baseline: "libsrtp from C", result: result)
    }
}
