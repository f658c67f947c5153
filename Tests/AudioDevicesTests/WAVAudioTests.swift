// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Testing
import TestSupport

@Suite struct WAVAudioTests {
    @Test func roundTripsSamplesRateAndChannels() throws {
        var generator = SeededGenerator(seed: 7)
        let samples = (0..<4_802).map { _ in Int16.random(in: .min ... .max, using: &generator) }
        let audio = WAVAudio(sampleRate: 44_100, channelCount: 2, samples: samples)
        let parsed = try WAVAudio(wavData: audio.wavData())
        #expect(parsed == audio)
        #expect(parsed.frameCount == 2_401)
    }

    @Test func writesAndReadsAFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("wav-\(UUID()).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let audio = WAVAudio(sampleRate: 16_000, channelCount: 1, samples: [0, 1, -1, .max, .min])
        try audio.write(to: url)
        #expect(try WAVAudio(contentsOf: url) == audio)
    }

    @Test func readsTheCommittedSpeechFixtures() throws {
        for name in ["speech/alice-en-us-48k.wav", "speech/bob-en-gb-48k.wav"] {
            let audio = try WAVAudio(contentsOf: VectorFiles.url(name))
            #expect(audio.sampleRate == 48_000)
            #expect(audio.channelCount == 1)
            #expect(audio.durationSeconds > 5)
            #expect(audio.samples.contains { abs(Int($0)) > 8_000 }, "fixture \(name) should hold speech, not silence")
        }
    }

    @Test func skipsUnknownChunksAndReadsFloat() throws {
        var bytes = Array("RIFF".utf8) + le32(0) + Array("WAVE".utf8)
        bytes += Array("LIST".utf8) + le32(3) + [1, 2, 3, 0]  // odd size, padded
        bytes += Array("fmt ".utf8) + le32(16) + le16(3) + le16(1) + le32(8_000) + le32(32_000) + le16(4) + le16(32)
        bytes += Array("data".utf8) + le32(12) + le32(Float(0.5).bitPattern) + le32(Float(-2).bitPattern) + le32(Float(0).bitPattern)
        let audio = try WAVAudio(wavData: Data(bytes))
        #expect(audio.samples == [16_384, -32_767, 0])
        #expect(audio.sampleRate == 8_000)
    }

    @Test func rejectsMalformedInputWithTypedErrors() {
        #expect(throws: WAVError.malformed("no RIFF/WAVE header")) { try WAVAudio(wavData: Data([1, 2, 3])) }
        let header = Array("RIFF".utf8) + le32(0) + Array("WAVE".utf8)
        #expect(throws: WAVError.malformed("no data chunk")) { try WAVAudio(wavData: Data(header)) }
        #expect(throws: WAVError.malformed("data chunk before fmt chunk")) {
            try WAVAudio(wavData: Data(header + Array("data".utf8) + le32(2) + [0, 0]))
        }
        let adpcm = header + Array("fmt ".utf8) + le32(16) + le16(2) + le16(1) + le32(8_000) + le32(4_000) + le16(1) + le16(4)
            + Array("data".utf8) + le32(0)
        #expect(throws: WAVError.unsupportedFormat("format tag 2, 4 bits per sample")) { try WAVAudio(wavData: Data(adpcm)) }
        #expect(throws: WAVError.malformed("chunk 'LIST' runs past the end")) {
            try WAVAudio(wavData: Data(header + Array("LIST".utf8) + le32(1_000) + [0]))
        }
        let missing = URL(fileURLWithPath: "/nonexistent/x.wav")
        #expect(throws: WAVError.self) { try WAVAudio(contentsOf: missing) }
    }

    /// Every truncation of a valid file is refused with a `WAVError`, or read as a prefix of
    /// its samples in its format (a recording cut short keeps what it has); none traps.
    @Test func truncationsOfAValidFileAreRefusedOrReadAsAPrefix() throws {
        let samples = (0..<20).map { Int16($0 * 1_000 - 9_000) }
        let valid = [UInt8](WAVAudio(sampleRate: 8_000, channelCount: 2, samples: samples).wavData())
        var refused = 0, prefixes = 0
        for length in 0..<valid.count {
            do {
                let audio = try WAVAudio(wavData: Data(valid[0..<length]))
                #expect(audio.sampleRate == 8_000 && audio.channelCount == 2, "\(length) bytes")
                #expect(audio.samples.count < samples.count && Array(samples.prefix(audio.samples.count)) == audio.samples,
                        "\(length) bytes: \(audio.samples.count) samples, not a prefix")
                prefixes += 1
            } catch {
                refused += 1
            }
        }
        #expect(refused >= 44, "every cut inside the 44-byte header is refused: \(refused) refused, \(prefixes) read")
        #expect(try WAVAudio(wavData: Data(valid)).samples == samples)
    }

    private func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    private func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
}
