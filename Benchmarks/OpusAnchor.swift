// SPDX-License-Identifier: Apache-2.0
import CBaseline
import COpus

/// The anchor of `benchmarks quality`: libopus driven directly from C (`CBaseline`'s encoder:
/// VOIP, VBR) at the given bitrate and complexity, no FEC, no network, no RTP — encode, then
/// decode every packet. What the codec alone makes of a signal: the ceiling a call reaches.
enum OpusAnchor {
    /// `samples` (48 kHz mono) through libopus in 20 ms frames; the last frame is padded with
    /// silence, and the output is as long as the frames encoded.
    static func decoded(_ samples: [Int16], bitrate: Int = 24_000, complexity: Int = 10) throws -> [Int16] {
        let frameCount = 960
        guard let encoder = cbase_opus_encoder_create(48_000, 1, Int32(bitrate), Int32(complexity)) else {
            throw BenchmarkError.setup("libopus encoder")
        }
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(48_000, 1, &error), error == OPUS_OK else {
            opus_encoder_destroy(encoder)
            throw BenchmarkError.setup("libopus decoder (\(error))")
        }
        defer {
            opus_encoder_destroy(encoder)
            opus_decoder_destroy(decoder)
        }
        let frames = (samples.count + frameCount - 1) / frameCount
        let input = samples + [Int16](repeating: 0, count: frames * frameCount - samples.count)
        var output = [Int16](repeating: 0, count: frames * frameCount)
        var packet = [UInt8](repeating: 0, count: 1_275)
        for index in 0..<frames {
            let bytes = input.withUnsafeBufferPointer { pcm in
                opus_encode(encoder, pcm.baseAddress! + index * frameCount, Int32(frameCount), &packet, Int32(packet.count))
            }
            guard bytes > 0 else { throw BenchmarkError.setup("opus_encode returned \(bytes)") }
            let decoded = output.withUnsafeMutableBufferPointer { pcm in
                opus_decode(decoder, packet, bytes, pcm.baseAddress! + index * frameCount, Int32(frameCount), 0)
            }
            guard decoded == frameCount else { throw BenchmarkError.setup("opus_decode returned \(decoded)") }
        }
        return output
    }
}
