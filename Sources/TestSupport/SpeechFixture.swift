// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The committed speech fixtures (`vectors/speech/*-48k.wav`, 16-bit mono) as samples, at
/// 48 kHz or decimated to 16 kHz.
public enum SpeechFixture {
    /// The far-end talker of the echo tests.
    public static let alice = "speech/alice-en-us-48k.wav"
    /// The near-end talker of the echo tests.
    public static let bob = "speech/bob-en-gb-48k.wav"

    /// Samples of `relativePath` at `sampleRate` (48 000, or 16 000 through a 3-tap average
    /// and decimation — a crude low-pass, enough for echo tests).
    public static func samples(_ relativePath: String, sampleRate: Int = 16_000) throws -> [Int16] {
        let data = try VectorFiles.data(relativePath)
        let bytes = [UInt8](data)
        // Find the "data" chunk.
        var position = 12
        var pcm: ArraySlice<UInt8> = []
        while position + 8 <= bytes.count {
            var size = 0
            for byte in 0..<4 { size |= Int(bytes[position + 4 + byte]) << (8 * byte) }
            if bytes[position..<position + 4].elementsEqual("data".utf8) {
                pcm = bytes[(position + 8)..<min(bytes.count, position + 8 + size)]
                break
            }
            position += 8 + size + (size & 1)
        }
        var samples = [Int16](repeating: 0, count: pcm.count / 2)
        for index in samples.indices {
            let low = UInt16(pcm[pcm.startIndex + 2 * index])
            let high = UInt16(pcm[pcm.startIndex + 2 * index + 1])
            samples[index] = Int16(bitPattern: low | high << 8)
        }
        guard sampleRate != 48_000 else { return samples }
        precondition(sampleRate == 16_000, "SpeechFixture: 48000 or 16000 only")
        return stride(from: 0, to: samples.count - 2, by: 3).map { (start: Int) -> Int16 in
            let sum = Int(samples[start]) + Int(samples[start + 1]) + Int(samples[start + 2])
            return Int16(sum / 3)
        }
    }
}
