// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioProcessing
import EchoEvaluation
import Foundation

/// `voicecall aec`: runs the echo canceller offline on a far-end / microphone recording pair.
struct EchoCancelCommand {
    static let usage = """
        voicecall aec --far FAR.wav --mic MIC.wav --out OUT.wav [--tail-ms N] [--known-delay-ms N] [--erle]
          Removes the echo of FAR (what the loudspeaker played) from MIC (what the microphone
          heard) with VoiceEngine's echo canceller: its own bulk-delay estimate aligns the far end
          (0–500 ms), speexdsp's canceller removes the echo, residual echo suppression follows.
          Both files mono 16-bit at the same rate (8–48 kHz). Prints the delay it found.
          --tail-ms N         echo tail the adaptive filter covers (default 200)
          --known-delay-ms N  start from a device-reported delay (snd_pcm_delay)
          --erle              also print ERLE (from 4 s on, over frames carrying echo) and
                              convergence time (to 20 dB over 500 ms windows), as the tests
                              and benchmarks measure them; meaningful when MIC holds echo only
        """

    static func run(_ arguments: inout CommandArguments) throws {
        guard let farPath = try arguments.value("--far"), let micPath = try arguments.value("--mic"),
              let outPath = try arguments.value("--out") else {
            throw CommandError.usage("aec needs --far, --mic and --out\n\(usage)")
        }
        let tailMs = try arguments.integer("--tail-ms", in: 1...2_000) ?? 200
        let knownDelayMs = try arguments.integer("--known-delay-ms", in: EchoCanceller.knownDelayRangeMs)
        let reportERLE = arguments.flag("--erle")
        try arguments.finish()

        let far = try WAVAudio(contentsOf: URL(fileURLWithPath: farPath))
        let mic = try WAVAudio(contentsOf: URL(fileURLWithPath: micPath))
        guard far.channelCount == 1, mic.channelCount == 1 else { throw CommandError.usage("both files must be mono") }
        guard far.sampleRate == mic.sampleRate else {
            throw CommandError.usage("far end is \(far.sampleRate) Hz, microphone \(mic.sampleRate) Hz: resample one first")
        }
        let canceller = try EchoCanceller(configuration: EchoCanceller.Configuration(
            sampleRate: mic.sampleRate, frameDurationMs: 10, tailMs: tailMs, knownDelayMs: knownDelayMs))
        let frame = canceller.frameCount
        let frames = mic.frameCount / frame
        let output = Array(canceller.processRecording(microphone: mic.samples, farEnd: far.samples).prefix(frames * frame))
        // The canceller's output lags by `latencySamples`: shift it back so OUT lines up with MIC.
        let latency = min(canceller.latencySamples, output.count)
        let aligned = Array(output[latency...]) + [Int16](repeating: 0, count: latency)
        try WAVAudio(sampleRate: mic.sampleRate, channelCount: 1, samples: aligned).write(to: URL(fileURLWithPath: outPath))

        print(String(format: "voicecall aec: %.2f s at %d Hz, tail %d ms; far end aligned by %.1f ms (%d alignment changes)",
                     Double(frames * frame) / Double(mic.sampleRate), mic.sampleRate, tailMs, canceller.alignmentDelayMs,
                     canceller.alignmentChanges))
        if reportERLE {
            let microphone = Array(mic.samples.prefix(aligned.count))
            let erle = EchoMeasurement.steadyStateERLE(microphone: microphone, residual: aligned, sampleRate: mic.sampleRate)
            let convergence = EchoMeasurement.convergenceSeconds(microphone: microphone, residual: aligned, sampleRate: mic.sampleRate)
            print(String(format: "  ERLE from %d s on: %@; convergence to %.0f dB: %@", EchoMeasurement.steadyStateStartSeconds,
                         erle.map { String(format: "%.1f dB", $0) } ?? "needs a longer recording",
                         EchoMeasurement.convergenceTargetDb, convergence.map { String(format: "%.2f s", $0) } ?? "not reached"))
        }
        print("  wrote \(outPath)")
    }
}
