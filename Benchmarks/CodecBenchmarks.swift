// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import AudioDevices
import AudioProcessing
import CSpanDSP
import TestSupport

/// `benchmarks codecs`: G.711 and G.722 through the `AudioCodecs` interface against spandsp
/// called directly (the raw C), and our waveform concealment against spandsp's G.711 PLC, on
/// the same speech, 20 ms frames.
struct CodecBenchmarks {
    static let group = "codecs"
    static let frames = 250  // 5 s of speech per round

    let comparison: Comparison
    let report: Report

    func run() throws {
        report.beginGroup(Self.group, baseline: "spandsp 0.0.6 called directly")
        let speech = try WAVAudio(contentsOf: VectorFiles.url("speech/alice-en-us-48k.wav")).samples
        let narrow = try Self.resampled(speech, to: 8_000), wide = try Self.resampled(speech, to: 16_000)
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_000, alignment: 8)
        defer { payload.deallocate() }
        let output = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 2_000)
        defer { output.deallocate() }

        for law in [G711Law.muLaw, .aLaw] where comparison.includes(Self.g711Row(law)) {
            let encoder = G711Encoder(law: law), decoder = G711Decoder(law: law)
            guard let state = g711_init(nil, law == .muLaw ? Int32(G711_ULAW) : Int32(G711_ALAW)),
                  let plc = plc_init(nil) else { throw BenchmarkError.setup("g711_init") }
            defer { g711_free(state); plc_free(plc) }
            let result = narrow.withUnsafeBufferPointer { pcm in
                comparison.run(operations: Self.frames, ours: {
                    for index in 0..<Self.frames {
                        let frame = UnsafeBufferPointer(rebasing: pcm[(index * 160)..<((index + 1) * 160)])
                        do {
                            let bytes = try encoder.encode(frame, into: payload)
                            _ = try decoder.decode(UnsafeRawBufferPointer(rebasing: payload[0..<bytes]), into: output)
                        } catch { fatalError("G.711: \(error)") }
                    }
                }, baseline: {
                    let bytes = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    for index in 0..<Self.frames {
                        _ = g711_encode(state, bytes, pcm.baseAddress! + index * 160, 160)
                        _ = g711_decode(state, output.baseAddress, bytes, 160)
                        _ = plc_rx(plc, output.baseAddress, 160)  // the history its PLC keeps, as our decoder does
                    }
                })
            }
            report.add(group: Self.group, name: Self.g711Row(law), unit: "us/frame", baseline: "spandsp g711_encode/decode + plc_rx", result: result)
        }

        if comparison.includes(Self.g722Row) {
            let encoder = try G722Encoder(), decoder = try G722Decoder()
            guard let theirEncoder = g722_encode_init(nil, 64_000, 0), let theirDecoder = g722_decode_init(nil, 64_000, 0) else {
                throw BenchmarkError.setup("g722 init")
            }
            defer { g722_encode_free(theirEncoder); g722_decode_free(theirDecoder) }
            let result = wide.withUnsafeBufferPointer { pcm in
                comparison.run(operations: Self.frames, ours: {
                    for index in 0..<Self.frames {
                        let frame = UnsafeBufferPointer(rebasing: pcm[(index * 320)..<((index + 1) * 320)])
                        do {
                            let bytes = try encoder.encode(frame, into: payload)
                            _ = try decoder.decode(UnsafeRawBufferPointer(rebasing: payload[0..<bytes]), into: output)
                        } catch { fatalError("G.722: \(error)") }
                    }
                }, baseline: {
                    let bytes = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
                    for index in 0..<Self.frames {
                        let count = g722_encode(theirEncoder, bytes, pcm.baseAddress! + index * 320, 320)
                        _ = g722_decode(theirDecoder, output.baseAddress, bytes, count)
                    }
                })
            }
            report.add(group: Self.group, name: Self.g722Row, unit: "us/frame", baseline: "spandsp g722_encode/decode", result: result)
        }

        // Concealment of a burst of three 20 ms frames right after a received one (the costly
        // part: a pitch search and the first periods), ours against spandsp's plc_fillin.
        if comparison.includes(Self.concealRow) {
            let ours = WaveformConcealment(sampleRate: 8_000)
            guard let theirs = plc_init(nil) else { throw BenchmarkError.setup("plc_init") }
            defer { plc_free(theirs) }
            var next = 0
            let result = narrow.withUnsafeBufferPointer { pcm in
                comparison.run(operations: 3, prepare: {
                    let frame = UnsafeBufferPointer(rebasing: pcm[(next * 160)..<((next + 1) * 160)])
                    next = (next + 1) % Self.frames
                    _ = UnsafeMutableBufferPointer(rebasing: output[0..<160]).initialize(from: frame)
                    ours.received(UnsafeMutableBufferPointer(rebasing: output[0..<160]))
                    _ = UnsafeMutableBufferPointer(rebasing: output[0..<160]).initialize(from: frame)
                    _ = plc_rx(theirs, output.baseAddress, 160)
                }, ours: {
                    for _ in 0..<3 { ours.conceal(into: UnsafeMutableBufferPointer(rebasing: output[0..<160])) }
                }, baseline: {
                    for _ in 0..<3 { _ = plc_fillin(theirs, output.baseAddress, 160) }
                })
            }
            report.add(group: Self.group, name: Self.concealRow, unit: "us/frame", baseline: "spandsp plc_fillin", result: result)
        }
    }

    static func g711Row(_ law: G711Law) -> String { "\(law.codec) encode+decode 8k 20ms" }
    static let g722Row = "G722 encode+decode 16k 20ms"
    static let concealRow = "concealment 8k 20ms (burst of 3)"

    /// `samples` (48 kHz) at `rate`, through speexdsp's best resampler.
    static func resampled(_ samples: [Int16], to rate: Int) throws -> [Int16] {
        let resampler = try Resampler(inputRate: 48_000, outputRate: rate, quality: .best)
        var output = [Int16](repeating: 0, count: samples.count * rate / 48_000 + 64)
        let (_, written) = samples.withUnsafeBufferPointer { input in output.withUnsafeMutableBufferPointer { resampler.process(input, into: $0) } }
        return Array(output.prefix(written))
    }
}
