// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import EchoEvaluation
import Foundation
import Testing
import TestSupport
@testable import voicecall

/// `voicecall aec` on files: a recording pair with a known room goes in, a WAV with the echo
/// removed comes out; bad command lines are refused before any file is written.
@Suite struct EchoCancelCommandTests {
    /// A private directory for one test's files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("voicecall-aec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func removesTheEchoOfARecordingPair() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let far = try SpeechFixture.samples(SpeechFixture.alice)
        let mic = EchoPath(sampleRate: 16_000, rt60Ms: 250, bulkDelayMs: 250, gainDb: -9, seed: 4).echo(of: far)
        let farURL = directory.appendingPathComponent("far.wav")
        let micURL = directory.appendingPathComponent("mic.wav")
        let outURL = directory.appendingPathComponent("out.wav")
        try WAVAudio(sampleRate: 16_000, channelCount: 1, samples: far).write(to: farURL)
        try WAVAudio(sampleRate: 16_000, channelCount: 1, samples: mic).write(to: micURL)

        var arguments = CommandArguments(["--far", farURL.path, "--mic", micURL.path, "--out", outURL.path, "--erle"])
        try EchoCancelCommand.run(&arguments)

        let out = try WAVAudio(contentsOf: outURL)
        #expect(out.sampleRate == 16_000 && out.channelCount == 1)
        #expect(abs(out.samples.count - mic.count) < 160)  // whole 10 ms frames
        // Lined up with the microphone (the canceller's latency removed): from 2 s on, the
        // residual is far below the echo.
        let steady = (2 * 16_000)..<out.samples.count
        let erle = EchoMeasurement.erle(microphone: mic, residual: out.samples, sampleRate: 16_000, range: steady)
        #expect(erle >= 25, "ERLE \(erle) dB")
    }

    /// OUT lines up with MIC sample for sample (the suppressor's one-frame latency is taken
    /// out), so a near-end talker in MIC sits at lag 0 in OUT.
    @Test func outputLinesUpWithTheMicrophone() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let far = try SpeechFixture.samples(SpeechFixture.alice)
        let near = try SpeechFixture.samples(SpeechFixture.bob)
        let echo = EchoPath(sampleRate: 16_000, rt60Ms: 250, bulkDelayMs: 120, gainDb: -12, seed: 5).echo(of: far)
        let start = 4 * 16_000
        let cleanNear = [Int16](repeating: 0, count: start) + near.prefix(far.count - start)
        let mic = zip(echo, cleanNear).map { Int16(clamping: Int($0) + Int($1)) }
        let farURL = directory.appendingPathComponent("far.wav")
        let micURL = directory.appendingPathComponent("mic.wav")
        let outURL = directory.appendingPathComponent("out.wav")
        try WAVAudio(sampleRate: 16_000, channelCount: 1, samples: far).write(to: farURL)
        try WAVAudio(sampleRate: 16_000, channelCount: 1, samples: mic).write(to: micURL)

        var arguments = CommandArguments(["--far", farURL.path, "--mic", micURL.path, "--out", outURL.path])
        try EchoCancelCommand.run(&arguments)

        let out = try WAVAudio(contentsOf: outURL).samples
        let end = min(out.count, cleanNear.count)
        let match = SignalComparison.bestCorrelation(reference: Array(cleanNear[start..<end]), signal: Array(out[start..<end]), maxLag: 400)
        #expect(match.lag == 0, "near end found at lag \(match.lag)")
        #expect(match.correlation > 0.8)
    }

    @Test func refusesMismatchedRatesAndMissingOptions() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let farURL = directory.appendingPathComponent("far.wav")
        let micURL = directory.appendingPathComponent("mic.wav")
        let outURL = directory.appendingPathComponent("out.wav")
        try WAVAudio(sampleRate: 16_000, channelCount: 1, samples: [Int16](repeating: 0, count: 1_600)).write(to: farURL)
        try WAVAudio(sampleRate: 48_000, channelCount: 1, samples: [Int16](repeating: 0, count: 4_800)).write(to: micURL)

        var mismatched = CommandArguments(["--far", farURL.path, "--mic", micURL.path, "--out", outURL.path])
        #expect(throws: CommandError.self) { try EchoCancelCommand.run(&mismatched) }
        var missing = CommandArguments(["--far", farURL.path, "--mic", micURL.path])
        #expect(throws: CommandError.self) { try EchoCancelCommand.run(&missing) }
        var unknown = CommandArguments(["--far", farURL.path, "--mic", micURL.path, "--out", outURL.path, "--bogus"])
        #expect(throws: CommandError.self) { try EchoCancelCommand.run(&unknown) }
        var badTail = CommandArguments(["--far", farURL.path, "--mic", micURL.path, "--out", outURL.path, "--tail-ms", "-5"])
        #expect(throws: CommandError.self) { try EchoCancelCommand.run(&badTail) }
        #expect(!FileManager.default.fileExists(atPath: outURL.path))
    }
}
