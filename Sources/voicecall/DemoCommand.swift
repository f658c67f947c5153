// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import MediaEngine
import NetworkSimulation
import SRTP

/// `voicecall demo`: two softphones in this process call each other through the CallKit-style
/// flow, over SRTP/Opus on real UDP through the network simulator; a live status, then a
/// summary, the received audio, and optionally the figures as JSON and SVG plots.
struct DemoCommand {
    static let usage = """
        voicecall demo [--network A…H|none] [--seconds N] [--seed N] [--fast] [--device PCM]
                       [--bitrate BPS] [--ptime MS] [--dtx] [--srtp SUITE] [--together]
                       [--out DIR] [--json PATH] [--plot DIR] [--alice WAV] [--bob WAV]
          Two softphones in this process, each with its own CallKit-style provider, audio
          session and VoiceEngine, call each other: push → report → ring → answer → didActivate
          → talk → hang up. Media: Opus in SRTP (keys made now, exchanged as SDES a=crypto
          lines, never printed) over UDP on 127.0.0.1 through a relay that applies the network
          simulator's delay and loss, echo cancellation, the adaptive jitter buffer. Runs
          without a sound card: each side speaks a WAV file into a virtual device.
          While it runs, one status line per direction; at the end a summary for both,
          DIR/received-by-bob.wav and DIR/received-by-alice.wav (what each side heard).
          --network C     G.1050 class A…H with bursty last-mile loss (default C), or none
          --seconds N     call length, 0 < N ≤ 36000 (default: both turns and a second
                          for the last words to be heard, 17 s)
          --seed N        seed of the network simulator, 0…2147483647 (default 1)
          --fast          virtual clock, as fast as the CPU goes (no VoiceEngine threads)
          --device PCM    a real ALSA microphone and loudspeaker for Alice (real time only)
          --bitrate BPS   Opus bitrate, 6000…510000 (default 32000)
          --ptime MS      packet time: 10, 20, 40 or 60 (default 20)
          --dtx           discontinuous transmission (nothing sent in silence)
          --srtp SUITE    \(SRTPProfile.allCases.map(\.sdesName).joined(separator: ", "))
          --out DIR       where the received audio goes (default: out)
          --json PATH     the summary and the samples over time as JSON
          --plot DIR      SVG plots: delay.svg (network vs playout), levels.svg, mos.svg
          --alice/--bob   mono 48 kHz WAV each side speaks (default: the speech fixtures);
                          Bob replies when Alice is done
          --together      both talk from the start (double talk)
        """

    static func run(_ arguments: inout CommandArguments) throws {
        let options = try DemoOptions(&arguments)
        let aliceInput = try WAVAudio(contentsOf: URL(fileURLWithPath: options.alicePath))
        var bobInput = try WAVAudio(contentsOf: URL(fileURLWithPath: options.bobPath))
        for (name, input) in [("alice", aliceInput), ("bob", bobInput)] where input.channelCount != 1 || input.sampleRate != options.media.sampleRate {
            throw CommandError.usage("--\(name): \(input.channelCount) channel(s) at \(input.sampleRate) Hz; the demo needs mono at \(options.media.sampleRate) Hz")
        }
        if !options.together {
            // Turns: Bob replies 0.3 s after Alice's last word.
            let pause = [Int16](repeating: 0, count: aliceInput.samples.count + options.media.sampleRate * 3 / 10)
            bobInput = WAVAudio(sampleRate: bobInput.sampleRate, channelCount: 1, samples: pause + bobInput.samples)
        }
        let seconds = options.seconds ?? max(aliceInput.durationSeconds, bobInput.durationSeconds) + DemoOptions.lastWordsHeardSeconds
        let media = options.media
        DemoOutput.line("voicecall demo: alice ↔ bob\(options.together ? " (talking together)" : "") on 127.0.0.1, network \(options.networkName) (seed \(options.seed)), "
                        + "SRTP \(media.srtpProfile.sdesName), Opus \(media.frameDurationMs) ms \(media.bitrate / 1_000) kb/s"
                        + "\(media.inbandFEC ? " FEC" : "")\(media.discontinuousTransmission ? " DTX" : ""), "
                        + String(format: "%.1f s ", seconds) + (options.fast ? "on a virtual clock" : "in real time")
                        + (options.device.map { ", alice on ALSA \($0)" } ?? ""))
        let outcome = options.fast
            ? try DemoFastRun(options: options, aliceInput: aliceInput, bobInput: bobInput, seconds: seconds).run()
            : try DemoRealtimeRun(options: options, aliceInput: aliceInput, bobInput: bobInput, seconds: seconds).run()
        let report = outcome.report
        DemoOutput.line("  offer  \(redacted(outcome.offer))")
        DemoOutput.line("  answer \(redacted(outcome.answer))")
        DemoOutput.line(String(format: "summary: %.2f s of call in %.2f s", report.callSeconds, report.elapsedSeconds))
        DemoOutput.line(report.table)

        let directory = URL(fileURLWithPath: options.outDirectory, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (file, audio, what) in [("received-by-bob.wav", outcome.receivedByBob, "alice's voice as bob heard it"),
                                    ("received-by-alice.wav", outcome.receivedByAlice, "bob's voice as alice heard it")] {
            guard let audio else { continue }
            let url = directory.appendingPathComponent(file)
            try audio.write(to: url)
            DemoOutput.line("  wrote \(url.path) (\(what))")
        }
        if let path = options.jsonPath {
            try report.write(to: path)
            DemoOutput.line("  wrote \(path)")
        }
        if let plots = options.plotDirectory {
            for path in try DemoPlots.write(report, to: plots) { DemoOutput.line("  wrote \(path)") }
        }
        let failures = report.directions.reduce(0) { $0 + $1.srtpFailures }
        if failures > 0 { throw CommandError.failed("\(failures) SRTP authentication failures or replays") }
    }

    /// The SDES line's tag and suite, and no key material at all (even a few base64
    /// characters of a key are bits of it an observer of the terminal or a log should not get).
    static func redacted(_ line: String) -> String {
        guard let attribute = try? SDESCryptoAttribute(parsing: line) else { return "a=crypto: (not shown)" }
        return "a=crypto:\(attribute.tag) \(attribute.profile.sdesName) inline:<key not shown>"
    }
}
