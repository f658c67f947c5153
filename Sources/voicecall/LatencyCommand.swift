// SPDX-License-Identifier: Apache-2.0
import Foundation
import LatencyEvaluation

/// `voicecall latency`: mouth-to-ear latency of a call and the time to first audio.
enum LatencyCommand {
    static let usage = """
        usage: voicecall latency [--period-ms MS] [--ptime MS] [--seconds N] [--phases N]
                                 [--no-processing | --low-latency-echo | --short-echo-hop] [--frame-playout] [--device NAME]
          Two engines in this process call each other over UDP on 127.0.0.1 with SRTP, on
          virtual devices paced in real time (a clean network). Tone bursts go into Alice's
          microphone once a second; the devices' clocks say when each left Bob's loudspeaker.
          Beside the measured delay: the floor of the configuration (half a capture period,
          the frame, the encoder's look-ahead, the network one way, its jitter, one playback
          period), what no buffering decision can remove. A call's delay depends on where
          Bob's playback periods fall against the end of Alice's frames, so the call is made
          at phases spread over a period and the delay is their mean.
          --period-ms       device period (default 10)
          --ptime           Opus frame, 10 or 20 ms (default 20)
          --seconds         length of each call (default 4: two bursts)
          --phases          calls made, at phases spread over a period (default 8)
          --no-processing   voice processing off (measurement mode) on both sides
          --low-latency-echo  the residual echo suppressor applies its gains by a 4 ms filter
                            instead of overlap-add (a frame, 10 ms)
          --short-echo-hop  the residual echo suppressor on 5 ms hops (overlap-add 5 ms
                            late instead of 10; EchoCanceller.Configuration.residualHopMs)
          --frame-playout   each call is rendered a frame at a time, not a device period
                            (MixerConfiguration.playoutTick = .frame)
          --device          Bob plays on this ALSA PCM instead of a virtual device; it must
                            loop what it plays back to its capture (the PulseAudio loopback,
                            scripts/pulseaudio-loopback: device pulse), where the bursts are
                            found. The sound server's buffering (Bob's playback snd_pcm_delay)
                            is reported apart from the engine's share. A burst the server
                            dropped is left out (at most half of them).
        """

    static func run(_ arguments: inout CommandArguments) throws {
        var measurement = MouthToEarMeasurement()
        measurement.periodMs = try arguments.integer("--period-ms", in: 1...100) ?? 10
        measurement.frameMs = try arguments.integer("--ptime", oneOf: [10, 20]) ?? 20
        measurement.seconds = try arguments.integer("--seconds", in: 3...3_600) ?? 4
        measurement.phases = try arguments.integer("--phases", in: 1...16) ?? 8
        if arguments.flag("--no-processing") { measurement.processing = .off }
        if arguments.flag("--low-latency-echo") {
            guard measurement.processing != .off else { throw CommandError.usage("--low-latency-echo needs processing: drop --no-processing") }
            measurement.processing = .voiceChatLowLatencyEchoSuppression
        }
        if arguments.flag("--short-echo-hop") {
            guard measurement.processing == .voiceChat else {
                throw CommandError.usage("--short-echo-hop needs voiceChat processing: drop --no-processing and --low-latency-echo")
            }
            measurement.processing = .voiceChatShortEchoHop
        }
        if arguments.flag("--frame-playout") { measurement.playoutTick = .frame }
        measurement.device = try arguments.value("--device")
        try arguments.finish()
        let result = try measurement.run()
        print(report(result, periodMs: measurement.periodMs, frameMs: measurement.frameMs))
        // A real device's server may drop a period (an underrun at 5 ms periods): the bursts
        // found still measure it. A virtual device drops nothing, so a burst missing there is
        // a fault of the call.
        let needed = measurement.device == nil ? result.bursts : (result.bursts + 1) / 2
        guard result.mouthToEarMs.count >= needed else {
            throw CommandError.failed("found \(result.mouthToEarMs.count) of \(result.bursts) bursts in Bob's playback")
        }
    }

    static func report(_ result: MouthToEarMeasurement.Result, periodMs: Int, frameMs: Int) -> String {
        func ms(_ value: Double) -> String { String(format: "%.1f ms", value) }
        let sorted = result.mouthToEarMs.sorted()
        let floor = result.floor
        let phases = result.phases.map { $0.offsetMs.isNaN ? ms($0.meanMs) : "\(ms($0.meanMs)) at \(ms($0.offsetMs))" }.joined(separator: ", ")
        let server = result.soundServerMs.map {
            "\nsound server: \(ms($0)) (Bob's playback snd_pcm_delay, the server's buffering); the engine's share: \(ms(result.meanMs - $0))"
        } ?? ""
        return """
            mouth-to-ear: \(ms(result.meanMs)) (\(sorted.count) of \(result.bursts) bursts, \(ms(sorted.first ?? .nan))–\(ms(sorted.last ?? .nan)); \(periodMs) ms periods, \(frameMs) ms frames)
            by phase (Alice's capture periods starting so long into Bob's playback period): \(phases)\(server)
            floor: \(ms(floor.totalMs)) (capture \(ms(floor.captureMs)), frame \(ms(floor.frameMs)), look-ahead \(ms(floor.codecLookaheadMs)), network \(ms(floor.networkMs)), jitter \(ms(floor.jitterMarginMs)), playback \(ms(floor.playbackMs))): the engine's own buffering is \(ms(result.meanMs - floor.totalMs))
            CPU: \(String(format: "%.1f", result.cpuMsPerSecond)) ms per second of the call (both engines)
            first audio: \(ms(max(result.firstCaptureMs, result.firstPlaybackMs))) (captured \(ms(result.firstCaptureMs)), played \(ms(result.firstPlaybackMs)) after start)
              capture buffering          \(ms(result.captureBufferingMs))   a sample's mean wait for the end of its device period
              framing and processing     \(ms(result.framingAndProcessingMs))   a whole frame, voice processing, encode, SRTP, send, decode
              network                    \(ms(result.networkMs))   half the RTCP round trip (loopback)
              jitter buffer              \(ms(result.jitterBufferMs))   mean wait of played samples (from the first burst on)
              playback buffering         \(ms(result.playbackBufferingMs))   the playback ring's period and the device buffer (snd_pcm_delay)
            """
    }
}
