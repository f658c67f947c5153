// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation

/// `voicecall loopback`: plays a chirp (or a WAV file) on a device and captures it back,
/// printing the round-trip latency, the match and the xruns.
enum LoopbackCommand {
    static let usage = """
        usage: voicecall loopback [--device NAME] [--seconds N] [--file WAV] [--period-ms MS] [--stall-ms MS] [--pulse-underruns]
          --device     ALSA PCM (default: pulse when PULSE_SERVER is set, else default)
          --seconds    how long to run (default 2)
          --file       play this mono WAV (at its rate) instead of a chirp
          --period-ms  period size (default 10; buffer = 4 periods)
          --stall-ms   stall the I/O thread once, mid-run, to force an xrun and time its recovery
          --pulse-underruns  open PulseAudio's PCM with handle_underrun (the plain pulse PCM
                       does not report xruns), as the device named by --device
        """

    static func run(_ arguments: inout CommandArguments) throws {
        let environment = ProcessInfo.processInfo.environment
        let device = try arguments.value("--device") ?? (environment["PULSE_SERVER"] != nil ? "pulse" : "default")
        let seconds = try arguments.seconds("--seconds", upTo: 3_600) ?? 2  // the rings hold the whole run
        let periodMs = try arguments.integer("--period-ms", in: 1...1_000) ?? 10
        let stallMs = try arguments.integer("--stall-ms", in: 0...ALSAStream<SystemALSA>.maximumStallMilliseconds) ?? 0
        let file = try arguments.value("--file")
        let pulseUnderruns = arguments.flag("--pulse-underruns")
        try arguments.finish()

        var signal: [Int16]
        var rate = 48_000
        if let file {
            let audio = try WAVAudio(contentsOf: URL(fileURLWithPath: file))
            guard audio.channelCount == 1 else { throw CommandError.usage("--file must be mono") }
            rate = audio.sampleRate
            signal = audio.samples
        } else {
            signal = LoopbackProbe.chirp(sampleRate: rate)
        }
        let totalFrames = Int(seconds * Double(rate))
        if signal.count < totalFrames - rate / 2 {
            signal += [Int16](repeating: 0, count: max(0, totalFrames - rate / 2 - signal.count))
        }
        signal = Array(signal.prefix(max(totalFrames - rate / 2, rate / 10)))

        let alsa = pulseUnderruns ? SystemALSA(configuration: "pcm.\(device) { type pulse handle_underrun true }") : SystemALSA()
        let stream = try ALSAStream(device: device, directions: .duplex,
                                    parameters: StreamParameters(sampleRate: rate, channelCount: 1, periodMs: periodMs, periods: 4),
                                    ringMs: Int(seconds * 1_000) + 2_000, calls: alsa) { event in
            FileHandle.standardError.write(Data("event: \(event)\n".utf8))
        }
        print("device \(device): capture \(stream.parameters(for: .capture)!), playback \(stream.parameters(for: .playback)!)")
        if stallMs > 0 {
            let stallAfter = min(seconds / 2, 1.0)
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: stallAfter)
                stream.stall(milliseconds: stallMs)
            }
        }
        let result = try LoopbackProbe.run(stream, signal: signal, timeoutSeconds: seconds + 5)
        let capture = stream.statistics(.capture), playback = stream.statistics(.playback)
        let refusal = stream.realtimeRefusal.map { "SCHED_FIFO refused: \($0)" } ?? "SCHED_FIFO not asked for"
        print("I/O thread: \(stream.isRealtime ? "SCHED_FIFO" : "normal priority (\(refusal))")")
        if let latency = result.latencyMs {
            print(String(format: "round trip: %.1f ms (%d frames), correlation %.3f", latency, result.latencyFrames!, result.correlation))
        } else {
            print("round trip: signal not found in the capture")
        }
        print("xruns: capture \(capture.xruns), playback \(playback.xruns); recoveries \(capture.recoveries + playback.recoveries); reopens \(capture.reopens + playback.reopens)")
        let recovery = max(capture.lastRecoveryNanoseconds, playback.lastRecoveryNanoseconds)
        if recovery > 0 { print(String(format: "last xrun recovery: %.2f ms", Double(recovery) / 1e6)) }
        print("delay: capture \(capture.delayFrames) frames, playback \(playback.delayFrames) frames")
        if stream.isLost { throw CommandError.failed("device lost") }
    }
}
