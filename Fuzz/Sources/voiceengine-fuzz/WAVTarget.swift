// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation

/// `WAVAudio(wavData:)` over any bytes (RIFF and RF64): what parses has whole frames and a
/// supported format, and writes a file that reads back equal.
enum WAVTarget {
    static let target = FuzzTarget(name: "wav", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let audio = try? WAVAudio(wavData: Data(bytes)) else { return }
        check((1...8).contains(audio.channelCount) && (1...768_000).contains(audio.sampleRate),
              "\(audio.channelCount) channels at \(audio.sampleRate) Hz accepted")
        check(audio.samples.count % audio.channelCount == 0, "\(audio.samples.count) samples in \(audio.channelCount) channels")
        check(audio.samples.count <= bytes.count, "\(audio.samples.count) samples from \(bytes.count) bytes")
        let again = try? WAVAudio(wavData: audio.wavData())
        check(again == audio, "wavData() does not read back equal")
    }

    static func seeds() throws -> [[UInt8]] {
        let pcm = WAVAudio(sampleRate: 8_000, channelCount: 1, samples: [0, 1000, -1000, 32767, -32768, 5])
        let stereo = WAVAudio(sampleRate: 48_000, channelCount: 2, samples: [1, 2, 3, 4])
        // IEEE float, 32 bits, one channel, 16 kHz, with a LIST chunk before data.
        var float: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVE".utf8)
        float += Array("fmt ".utf8) + [16, 0, 0, 0, 3, 0, 1, 0, 0x80, 0x3E, 0, 0, 0, 0xFA, 0, 0, 4, 0, 32, 0]
        float += Array("LIST".utf8) + [3, 0, 0, 0, 1, 2, 3, 0]
        float += Array("data".utf8) + [8, 0, 0, 0, 0, 0, 0, 0x3F, 0, 0, 0x80, 0xBF]
        // RF64 (EBU Tech 3306): the header for 2^32 frames (sizes in ds64, 32-bit sizes
        // 0xFFFFFFFF) over three samples: the data chunk claims far more than is there.
        let rf64 = try WAVHeader(sampleRate: 48_000, channelCount: 1, frameCount: 1 << 32).bytes + [1, 0, 2, 0, 3, 0]
        return [[UInt8](pcm.wavData()), [UInt8](stereo.wavData()), float, rf64]
    }
}
