// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import CBaseline
import COpus
import Opus
import TestSupport

/// Opus encode (complexity 0/5/10), decode and PLC: the Swift API against the same libopus
/// calls made from C, on the same speech, 48 kHz mono 20 ms VOIP at 24 kb/s.
struct OpusBenchmarks {
    static let group = "opus"
    static let frameSize = 960
    static let frames = 250  // 5 s of speech per round

    let comparison: Comparison
    let report: Report

    func run() throws {
        report.beginGroup(Self.group, baseline: "libopus 1.3.1 called from C")
        let speech = try WAVAudio(contentsOf: VectorFiles.url("speech/alice-en-us-48k.wav")).samples
        let pcm = Array(speech[0..<(Self.frameSize * Self.frames)])
        let packetBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1_500, alignment: 8)
        defer { packetBuffer.deallocate() }

        for complexity in [0, 5, 10] where comparison.includes(Self.encodeRow(complexity)) {
            let ours = try makeEncoder(complexity: complexity)
            guard let theirs = cbase_opus_encoder_create(48_000, 1, 24_000, Int32(complexity)) else { throw BenchmarkError.setup("C encoder") }
            defer { opus_encoder_destroy(theirs) }
            let result = pcm.withUnsafeBufferPointer { pcm in
                comparison.run(operations: Self.frames, ours: {
                    for index in 0..<Self.frames {
                        let frame = UnsafeBufferPointer(rebasing: pcm[(index * Self.frameSize)..<((index + 1) * Self.frameSize)])
                        do { _ = try ours.encode(frame, into: packetBuffer) } catch { fatalError("encode: \(error)") }
                    }
                }, baseline: {
                    let bytes = cbase_opus_encode_frames(theirs, pcm.baseAddress, Int32(Self.frameSize), Int32(Self.frames),
                                                         packetBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self), 1_500)
                    precondition(bytes > 0, "C encode failed: \(bytes)")
                })
            }
            report.add(group: Self.group, name: Self.encodeRow(complexity), unit: "us/frame", baseline: "libopus from C", result: result)
        }

        // Packets to decode: the same speech at complexity 5.
        let encoder = try makeEncoder(complexity: 5)
        var packets: [UInt8] = []
        var lengths: [Int32] = []
        try pcm.withUnsafeBufferPointer { pcm in
            for index in 0..<Self.frames {
                let length = try encoder.encode(UnsafeBufferPointer(rebasing: pcm[(index * Self.frameSize)..<((index + 1) * Self.frameSize)]), into: packetBuffer)
                packets += packetBuffer[0..<length]
                lengths.append(Int32(length))
            }
        }
        var offsets: [Int] = [0]
        for length in lengths { offsets.append(offsets.last! + Int(length)) }

        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        var error: Int32 = 0
        guard let theirDecoder = opus_decoder_create(48_000, 1, &error) else { throw BenchmarkError.setup("C decoder") }
        defer { opus_decoder_destroy(theirDecoder) }
        let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: Self.frameSize)
        defer { output.deallocate() }

        if comparison.includes(Self.decodeRow) {
        let decode = packets.withUnsafeBytes { packets in
            lengths.withUnsafeBufferPointer { lengths in
                comparison.run(operations: Self.frames, ours: {
                    for index in 0..<Self.frames {
                        do { _ = try decoder.decode(UnsafeRawBufferPointer(rebasing: packets[offsets[index]..<offsets[index + 1]]), into: output) } catch { fatalError("decode: \(error)") }
                    }
                }, baseline: {
                    let samples = cbase_opus_decode_packets(theirDecoder, packets.baseAddress!.assumingMemoryBound(to: UInt8.self), lengths.baseAddress,
                                                            Int32(Self.frames), output.baseAddress, Int32(Self.frameSize))
                    precondition(samples > 0, "C decode failed: \(samples)")
                })
            }
        }
        report.add(group: Self.group, name: Self.decodeRow, unit: "us/frame", baseline: "libopus from C", result: decode)
        }

        // PLC: each round starts right after a decoded packet, then conceals a burst, so the
        // concealment measured is the costly early part, not a faded-out tail.
        let burst = 5
        guard comparison.includes(Self.concealRow) else { return }
        var nextPacket = 0
        let plc = packets.withUnsafeBytes { packets in
            comparison.run(operations: burst, prepare: {
                let packet = UnsafeRawBufferPointer(rebasing: packets[offsets[nextPacket]..<offsets[nextPacket + 1]])
                nextPacket = (nextPacket + 1) % Self.frames
                do { _ = try decoder.decode(packet, into: output) } catch { fatalError("decode: \(error)") }
                _ = opus_decode(theirDecoder, packet.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(packet.count), output.baseAddress!, Int32(Self.frameSize), 0)
            }, ours: {
                for _ in 0..<burst {
                    do { _ = try decoder.conceal(into: output) } catch { fatalError("conceal: \(error)") }
                }
            }, baseline: {
                precondition(cbase_opus_conceal_frames(theirDecoder, Int32(burst), output.baseAddress, Int32(Self.frameSize)) > 0)
            })
        }
        report.add(group: Self.group, name: Self.concealRow, unit: "us/frame", baseline: "libopus from C", result: plc)
    }

    static func encodeRow(_ complexity: Int) -> String { "encode c\(complexity) 48k 20ms 24kb/s" }
    static let decodeRow = "decode 48k 20ms"
    static let concealRow = "PLC 48k 20ms (burst of 5)"

    private func makeEncoder(complexity: Int) throws -> OpusEncoder {
        let encoder = try OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        try encoder.setBitrate(.bitsPerSecond(24_000))
        try encoder.setComplexity(complexity)
        try encoder.setBitrateMode(.vbr)
        return encoder
    }
}

/// A benchmark could not be set up.
enum BenchmarkError: Error, CustomStringConvertible {
    case setup(String)
    case usage(String)

    var description: String {
        switch self {
        case let .setup(what): return "benchmark setup failed: \(what)"
        case let .usage(what): return "usage: \(what)"
        }
    }
}
