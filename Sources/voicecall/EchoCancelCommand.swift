import AudioDevices
import AudioProcessing
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
          --erle              also print ERLE and convergence time; meaningful when MIC holds
                              echo only (no near-end talker)
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
        var output = [Int16](repeating: 0, count: frames * frame)
        var farFrame = [Int16](repeating: 0, count: frame)
        for index in 0..<frames {
            let range = (index * frame)..<((index + 1) * frame)
            for offset in 0..<frame { farFrame[offset] = range.lowerBound + offset < far.samples.count ? far.samples[range.lowerBound + offset] : 0 }
            mic.samples[range].withUnsafeBufferPointer { microphone in
                farFrame.withUnsafeBufferPointer { farEnd in
                    output[range].withUnsafeMutableBufferPointer { out in
                        canceller.process(microphone: microphone, farEnd: farEnd, output: out)
                    }
                }
            }
        }
        // The canceller's output lags by `latencySamples`: shift it back so OUT lines up with MIC.
        let latency = min(canceller.latencySamples, output.count)
        let aligned = Array(output[latency...]) + [Int16](repeating: 0, count: latency)
        try WAVAudio(sampleRate: mic.sampleRate, channelCount: 1, samples: aligned).write(to: URL(fileURLWithPath: outPath))

        print(String(format: "voicecall aec: %.2f s at %d Hz, tail %d ms; far end aligned by %.1f ms (%d alignment changes)",
                     Double(frames * frame) / Double(mic.sampleRate), mic.sampleRate, tailMs, canceller.alignmentDelayMs,
                     canceller.alignmentChanges))
        if reportERLE {
            let window = mic.sampleRate / 2
            let convergence = convergenceSeconds(mic: mic.samples, output: aligned, window: window, sampleRate: mic.sampleRate)
            let steadyStart = min(aligned.count, 2 * mic.sampleRate)
            let erle = decibels(Array(mic.samples[steadyStart..<aligned.count]), over: Array(aligned[steadyStart...]))
            print(String(format: "  ERLE from 2 s on: %.1f dB; convergence to 20 dB: %@", erle,
                         convergence.map { String(format: "%.2f s", $0) } ?? "not reached"))
        }
        print("  wrote \(outPath)")
    }

    /// 10·log10 of the power of `reference` over the power of `residual`.
    static func decibels(_ reference: [Int16], over residual: [Int16]) -> Double {
        func power(_ samples: [Int16]) -> Double { samples.reduce(0.0) { $0 + Double($1) * Double($1) } + 1 }
        return 10 * log10(power(reference) / power(residual))
    }

    /// The start of the first half-second window whose ERLE reaches 20 dB, in seconds.
    static func convergenceSeconds(mic: [Int16], output: [Int16], window: Int, sampleRate: Int) -> Double? {
        var start = 0
        while start + window <= min(mic.count, output.count) {
            let slice = start..<(start + window)
            if decibels(Array(mic[slice]), over: Array(output[slice])) >= 20 { return Double(start) / Double(sampleRate) }
            start += window / 2
        }
        return nil
    }
}
