// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import PushRegistry
import Foundation
import Testing
import TestSupport
@testable import voicecall

/// `voicecall demo` as a newcomer runs it: the built binary, on the virtual clock (`--fast`)
/// through the network simulator, and once in real time with two engines. What it prints and
/// writes (WAVs, JSON, SVG) is read back and checked; bad command lines are refused.
@Suite struct DemoCommandTests {
    /// The built binary run to its end, both outputs kept.
    struct Run {
        var status: Int32
        var exited: Bool
        var output: String
        var errors: String
    }

    static func run(_ arguments: [String]) throws -> Run {
        let executable = VoiceCallProcess.executable
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "voicecall is not built at \(executable.path)")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both to their ends concurrently so neither pipe fills and blocks the child.
        let errorText = LockedText()
        let reader = Thread { errorText.set(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)) }
        reader.start()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        while !errorText.isSet { usleep(1_000) }
        return Run(status: process.terminationStatus, exited: process.terminationReason == .exit, output: text, errors: errorText.value)
    }

    final class LockedText: @unchecked Sendable {
        private let lock = NSLock()
        private var text: String?
        func set(_ value: String) { lock.lock(); text = value; lock.unlock() }
        var isSet: Bool { lock.lock(); defer { lock.unlock() }; return text != nil }
        var value: String { lock.lock(); defer { lock.unlock() }; return text ?? "" }
    }

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("voicecall-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `demo --fast` with `extra` into a fresh directory; returns the run, the report and the directory.
    static func fastDemo(_ extra: [String], seconds: Int = 3) throws -> (Run, DemoReport, URL) {
        let directory = try directory()
        let run = try run(["demo", "--fast", "--seconds", "\(seconds)", "--out", directory.path, "--json", directory.appendingPathComponent("demo.json").path,
                           "--plot", directory.appendingPathComponent("plots").path] + extra)
        #expect(run.exited && run.status == 0, "\(run.errors)")
        let report = try JSONDecoder().decode(DemoReport.self, from: Data(contentsOf: directory.appendingPathComponent("demo.json")))
        return (run, report, directory)
    }

    /// Without `--seconds` the call lasts both turns and a second more, so the other side hears
    /// the last words: Bob's input ends in a burst, which reaches Alice's loudspeaker after his
    /// input has ended (the jitter buffer's start and the devices hold it back).
    @Test func theDefaultCallLastsUntilTheLastWordsAreHeard() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let alice = directory.appendingPathComponent("alice.wav"), bob = directory.appendingPathComponent("bob.wav")
        try WAVAudio(sampleRate: 48_000, channelCount: 1, samples: [Int16](repeating: 0, count: 48_000)).write(to: alice)
        // A second of silence, then 100 ms of a 150 Hz buzz (harmonics to 3 kHz, speech-like).
        let burst: [Int16] = (0..<4_800).map { (n: Int) -> Int16 in
            var value = 0.0
            for harmonic in 1...20 {
                let phase = 2 * Double.pi * 150 * Double(harmonic) * Double(n) / 48_000
                value += sin(phase) / Double(harmonic)
            }
            return Int16(value * 6_000)
        }
        try WAVAudio(sampleRate: 48_000, channelCount: 1, samples: [Int16](repeating: 0, count: 48_000) + burst).write(to: bob)
        let json = directory.appendingPathComponent("demo.json")
        let run = try Self.run(["demo", "--fast", "--network", "none", "--alice", alice.path, "--bob", bob.path,
                                "--out", directory.path, "--json", json.path])
        #expect(run.exited && run.status == 0, "\(run.errors)")
        let report = try JSONDecoder().decode(DemoReport.self, from: Data(contentsOf: json))
        // Bob's turn: Alice's second, 0.3 s, his 1.1 s; then the second to hear it.
        #expect(abs(report.callSeconds - 3.4) < 0.05, "\(report.callSeconds) s")
        let heard = try WAVAudio(contentsOf: directory.appendingPathComponent("received-by-alice.wav")).samples
        let burstStart = Int(2.4 * 48_000)  // where Bob's input ends in his burst, 2.3–2.4 s
        let afterInputEnded = heard.dropFirst(burstStart).map { Double($0) * Double($0) }
        let level = (afterInputEnded.reduce(0, +) / Double(max(1, afterInputEnded.count))).squareRoot()
        #expect(heard.count == Int(3.4 * 48_000) && afterInputEnded.contains { $0 > 1_000 * 1_000 },
                "Bob's burst after his input ended: RMS \(level) over \(afterInputEnded.count) samples")
    }

    @Test(arguments: ["none", "A", "C", "F"])
    func fastDemoThroughTheNetworkWritesItsFiles(network: String) throws {
        let (run, report, directory) = try Self.fastDemo(["--network", network, "--seed", "7", "--together"])
        defer { try? FileManager.default.removeItem(at: directory) }

        // The flow went through every step, in order.
        let steps = ["dials", "push:", "reportNewIncomingCall — ringing", "answers", "bob: didActivate", "connected", "hangs up",
                     "reportCall(endedAt:, reason: .remoteEnded)"]
        let positions = steps.map { step in report.flow.firstIndex { $0.contains(step) } }
        #expect(!positions.contains(nil), "\(report.flow)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(report.flow)")
        #expect(report.flow.filter { $0.contains("didDeactivate") }.count == 2)

        #expect(report.network == (network == "none" ? "none" : "\(network)+bursty"))
        #expect(report.fast && report.seed == 7 && abs(report.callSeconds - 3) < 0.05)
        #expect(report.directions.map(\.from) == ["alice", "bob"])
        for direction in report.directions {
            #expect(direction.packetsSent == 150, "\(direction.from): 3 s of 20 ms packets")
            #expect(direction.srtpFailures == 0)
            if network == "none" {
                #expect(direction.packetsReceived >= 149 && direction.packetsLost == 0 && direction.networkDropped == 0)
                #expect(direction.networkDelayMs == nil)
                #expect(direction.mos.map { $0 > 3.4 && $0 <= 4.5 } == true, "clean: \(String(describing: direction.mos))")
                // The estimate's parts: nothing missed, Opus at about the 32 kb/s it was sent at (Ie,WB 24.5).
                #expect(direction.estimatedMissedPercent == 0)
                #expect(direction.estimatedCodecImpairment.map { abs($0 - 24.5) < 4 } == true,
                        "\(String(describing: direction.estimatedCodecImpairment))")
            } else {
                // About 2 % last-mile loss (a seeded trace): some loss, most packets through.
                #expect(direction.networkDropped > 0 && direction.networkDropped < 20, "\(direction.networkDropped) dropped")
                #expect(direction.packetsReceived > 120)
                #expect(direction.networkDelayMs.map { $0 > 0 } == true)
                #expect(direction.mos.map { (1...4.5).contains($0) } == true)
                #expect(direction.estimatedMissedPercent.map { (0...100).contains($0) } == true)
                #expect(direction.estimatedLossRobustness.map { $0 >= 6 } == true)
            }
            #expect(direction.bitrateKbps > 15 && direction.bitrateKbps < 45)
            #expect(direction.timeScaledPercent >= 0 && direction.timeScaledPercent < 10)
            #expect(direction.samples.count == 6, "a sample every 0.5 s")
            #expect(direction.samples.allSatisfy { $0.lossPercent >= 0 && $0.lossPercent <= 100 && $0.jitterMs >= 0 })
        }
        // Class F's network delay is far above class A's.
        if network == "F" { #expect(report.directions.allSatisfy { ($0.networkDelayMs ?? 0) > 120 }) }
        if network == "A" { #expect(report.directions.allSatisfy { ($0.networkDelayMs ?? 99) < 40 }) }

        for name in ["received-by-bob.wav", "received-by-alice.wav"] {
            let audio = try WAVAudio(contentsOf: directory.appendingPathComponent(name))
            #expect(audio.sampleRate == 48_000 && audio.channelCount == 1 && audio.samples.count == 144_000, "\(name)")
        }
        for name in ["delay.svg", "levels.svg", "mos.svg"] {
            let svg = try String(contentsOf: directory.appendingPathComponent("plots/\(name)"), encoding: .utf8)
            #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.hasSuffix("</svg>\n"))
            #expect(svg.contains("<polyline"), "\(name) draws lines")
            #expect(svg.contains("alice → bob") && svg.contains("bob → alice"))
        }
        // The summary and the status lines were printed; no key, not even in part.
        #expect(run.output.contains("MOS, conversational") && run.output.contains("alice → bob"))
        #expect(run.output.components(separatedBy: "inline:").dropFirst().allSatisfy { $0.hasPrefix("<key not shown>") })
        #expect(!run.output.contains("\u{1B}["), "not a terminal: plain lines")
        let json = try String(contentsOf: directory.appendingPathComponent("demo.json"), encoding: .utf8)
        #expect(!json.contains("inline:") && !json.contains("crypto"), "no key material in the JSON")
    }

    /// The media options reach both sides: 60 ms packets (the virtual-clock mixer used to
    /// refuse them), DTX, an AEAD suite.
    @Test func mediaOptionsReachTheCall() throws {
        let (_, report, directory) = try Self.fastDemo(["--network", "none", "--ptime", "60", "--dtx", "--srtp", "AEAD_AES_256_GCM", "--together"])
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(report.ptimeMs == 60 && report.dtx && report.srtp == "AEAD_AES_256_GCM")
        for direction in report.directions {
            // 50 packets of 60 ms in 3 s, fewer with DTX in the speech's pauses.
            #expect(direction.packetsSent > 20 && direction.packetsSent <= 50, "\(direction.from): \(direction.packetsSent)")
            #expect(direction.packetsLost == 0 && direction.srtpFailures == 0 && direction.packetsReceived >= direction.packetsSent - 1)
        }
    }

    /// One seed, one network: two runs give the same call bit for bit — the same media figures
    /// and samples and the same recordings — however the machine schedules the loopback's
    /// datagrams (RTCP's random timing is seeded too); another seed loses others. What is not
    /// media is left out: the wall-clock time the run took, and the call flow's time stamps and
    /// push (the control plane runs on real queues, and a call's UUID is random by design);
    /// the flow's steps must still be the same, in the same order.
    @Test func aSeedGivesTheSameCall() async throws {
        try await offCooperativePool {
            var reports: [DemoReport] = []
            var recordings: [[Data]] = []
            for seed in ["5", "5", "6"] {
                let (_, report, directory) = try Self.fastDemo(["--network", "D", "--seed", seed, "--together"])
                defer { try? FileManager.default.removeItem(at: directory) }
                var timeless = report
                timeless.elapsedSeconds = 0
                // "  0.085 s  alice: dials …": the step without its time; the push without its JSON.
                timeless.flow = report.flow.map { line in
                    let step = line.range(of: " s  ").map { String(line[$0.upperBound...]) } ?? line
                    return step.hasPrefix("push:") ? String(step.prefix(while: { $0 != "{" })) : step
                }
                reports.append(timeless)
                recordings.append(try ["received-by-bob.wav", "received-by-alice.wav"].map {
                    try Data(contentsOf: directory.appendingPathComponent($0))
                })
            }
            #expect(reports[0] == reports[1])
            #expect(recordings[0] == recordings[1], "the same seed, the same audio")
            #expect(reports[0].directions.map(\.networkDropped) != reports[2].directions.map(\.networkDropped)
                        || reports[0].directions.map(\.packetsLost) != reports[2].directions.map(\.packetsLost))
            #expect(reports[0].directions.allSatisfy { $0.networkDropped > 0 }, "class D loses packets")
        }
    }

    /// On a clean loopback each side hears the other: what Bob heard correlates with what
    /// Alice said (and not with what he said himself), and the other way round.
    @Test func cleanCallCarriesTheSpeech() throws {
        let (_, _, directory) = try Self.fastDemo(["--network", "none", "--together"], seconds: 4)
        defer { try? FileManager.default.removeItem(at: directory) }
        let alice = try WAVAudio(contentsOf: VectorFiles.url("speech/alice-en-us-48k.wav")).samples
        let bob = try WAVAudio(contentsOf: VectorFiles.url("speech/bob-en-gb-48k.wav")).samples
        let heardByBob = try WAVAudio(contentsOf: directory.appendingPathComponent("received-by-bob.wav")).samples
        let heardByAlice = try WAVAudio(contentsOf: directory.appendingPathComponent("received-by-alice.wav")).samples
        #expect(heardByBob.count == 192_000)
        func correlation(_ reference: [Int16], _ heard: [Int16]) -> Double {
            SignalComparison.segmentalCorrelation(reference: Array(reference[0..<heard.count]), signal: heard, segmentLength: 2_880, maxLag: 9_600)
        }
        // Measured 0.70–0.80 without an echo path (DemoCallTests); garbled or missing speech
        // stays under 0.3.
        let forward = correlation(alice, heardByBob), backward = correlation(bob, heardByAlice)
        #expect(forward > 0.6, "alice → bob \(forward)")
        #expect(backward > 0.6, "bob → alice \(backward)")
        let own = correlation(bob, heardByBob)
        #expect(own < 0.5, "bob does not hear his own echo back: \(own)")
    }

    /// The real thing, briefly: two engines on virtual devices paced in real time, started by
    /// their audio sessions, media through the relay. The call lasts 1.5 s of wall-clock time,
    /// and how much of it a loaded machine gives the engines' threads is the machine's: the
    /// floors are a fraction of it (a demo whose engines do not run sends and hears nothing).
    @Test func realTimeDemoRunsTheEngines() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("demo.json")
        let run = try Self.run(["demo", "--seconds", "1.5", "--network", "B", "--together", "--out", directory.path, "--json", json.path])
        #expect(run.exited && run.status == 0, "\(run.errors)")
        let report = try JSONDecoder().decode(DemoReport.self, from: Data(contentsOf: json))
        #expect(!report.fast && report.callSeconds >= 1.5)
        for direction in report.directions {
            // 75 packets in 1.5 s; on a loaded machine (the fast demos of this suite run
            // alongside) the engines' threads start late and catch up only partly: 10 sent and
            // 5 received (a fifth and a tenth of a second) is far below what any run measured.
            #expect(direction.packetsSent >= 10 && direction.packetsReceived >= 5, "\(direction.from): \(direction.packetsSent) / \(direction.packetsReceived)")
            #expect(direction.srtpFailures == 0)
        }
        #expect(report.flow.contains { $0.contains("bob: didActivate") })
        let heard = try WAVAudio(contentsOf: directory.appendingPathComponent("received-by-bob.wav"))
        // About 1.5 s from Bob's answer to the hang-up (72 000 samples) when the machine keeps
        // up; a fifth of a second at least however loaded.
        #expect(heard.samples.count >= 9_600, "Bob's device played \(heard.samples.count) samples")
        #expect(SignalComparison.rmsDecibels(heard.samples) > -50, "Bob heard something")
    }

    @Test(arguments: [
        (["--network", "Z"], "--network needs a G.1050 class A…H or none, got \"Z\""),
        (["--network", "CC"], "--network needs a G.1050 class A…H or none"),
        (["--seed", "-1"], "--seed needs an integer in 0…2147483647, got \"-1\""),
        (["--seed", "1e9"], "--seed needs an integer in 0…2147483647"),
        (["--seconds", "0"], "--seconds needs a duration in seconds, more than 0 and at most 36000"),
        (["--srtp", "ROT13"], "--srtp needs one of AES_CM_128_HMAC_SHA1_80"),
        (["--device", "hw:0", "--fast"], "--device runs in real time: it cannot go with --fast"),
        (["--bitrate", "600000"], "--bitrate needs an integer in 6000…510000"),
        (["--ptime", "30"], "--ptime needs one of 10, 20, 40, 60"),
        (["--bogus"], "unexpected arguments: --bogus"),
        (["--json"], "--json needs a value"),
    ])
    func badOptionsAreRefused(arguments: [String], message: String) throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try Self.run(["demo", "--out", directory.path] + arguments)
        #expect(run.exited, "ended by signal \(run.status)")
        #expect(run.status == 1)
        #expect(run.errors.contains("voicecall demo: usage: \(message)"), "\(run.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing written")
    }

    /// A `--device` that does not exist is named before any call starts: exit status 1, no files.
    @Test func aMissingDeviceIsNamed() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try Self.run(["demo", "--device", "voicecall-no-such-pcm", "--seconds", "1", "--out", directory.path])
        #expect(run.exited && run.status == 1)
        #expect(run.errors.contains("voicecall demo: engine: cannot open the ALSA device voicecall-no-such-pcm"), "\(run.errors)")
        #expect(!run.output.contains("dials"), "no call was tried")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    // The parts, in process.

    @Test func defaultsAndNetworks() throws {
        var empty = CommandArguments([String]())
        let defaults = try DemoOptions(&empty)
        #expect(defaults.network?.name == "C+bursty" && defaults.seed == 1 && !defaults.fast && defaults.device == nil)
        #expect(abs((defaults.network?.loss.stationaryLossRate ?? 0) - 0.02) < 1e-9)
        #expect(try DemoOptions.network(named: "none") == nil)
        #expect(try DemoOptions.network(named: "h")?.name == "H+bursty")
        var old = CommandArguments(["--profile", "AES_256_CM_HMAC_SHA1_32"])
        #expect(try DemoOptions(&old).media.srtpProfile == .aes256CMHmacSha1_32, "--profile still works")
    }

    @Test func pushPayloadCarriesTheCallNotTheKeys() throws {
        let uuid = UUID()
        let json = DemoPush.payload(uuid: uuid, handle: "sip:alice@127.0.0.1", callerName: "Alice")
        let payload = try PushPayloadParser.parse(Data(json.utf8))
        #expect(payload.callUUID == uuid && payload.handle.value == "sip:alice@127.0.0.1" && payload.callerName == "Alice")
        #expect(payload.sentAt != nil, "the push carries its send time, so staleness can be judged")
        #expect(!json.contains("crypto") && !json.contains("inline"))
    }

    @Test func networkPathIsSeededAndDropsAboutItsRate() {
        var first = SimulatedNetworkPath(profile: DemoOptions.defaultNetwork, seconds: 60, ptimeMs: 20, seed: 3)
        var second = SimulatedNetworkPath(profile: DemoOptions.defaultNetwork, seconds: 60, ptimeMs: 20, seed: 3)
        var other = SimulatedNetworkPath(profile: DemoOptions.defaultNetwork, seconds: 60, ptimeMs: 20, seed: 4)
        let a = (0..<3_000).map { first.fate(sendMs: Double($0) * 20) }
        let b = (0..<3_000).map { second.fate(sendMs: Double($0) * 20) }
        let c = (0..<3_000).map { other.fate(sendMs: Double($0) * 20) }
        #expect(a == b && a != c)
        let lossRate = Double(first.dropped) / 3_000
        #expect(lossRate > 0.01 && lossRate < 0.035, "\(lossRate)")
        #expect(first.appliedDelays.allSatisfy { $0.delayMs >= 16 }, "class C: at least 16 ms")
        var clean = SimulatedNetworkPath(profile: nil, seconds: 1, ptimeMs: 20, seed: 1)
        #expect(clean.isClean && clean.fate(sendMs: 0) == 0 && clean.appliedDelays.isEmpty)
    }

    @Test func statusLineAndTable() {
        let sample = DemoSample(seconds: 2.5, bitrateKbps: 31.24, lossPercent: 1.5, jitterMs: 12.4, bufferDelayMs: 60, networkDelayMs: 40,
                                mos: 3.71, echoSuppressionDb: nil, sendLevelDbfs: -20, receiveLevelDbfs: -25)
        let line = DemoStatusDisplay.line(from: "alice", to: "bob", sample)
        #expect(line.contains("2.5 s") && line.contains("31.2 kb/s") && line.contains("loss  1.5 %") && line.contains("jitter  12 ms"))
        #expect(line.contains("buffer  60 ms") && line.contains("MOS 3.71") && line.contains("echo suppression —"))
        #expect(DemoPlots.niceCeiling(73) == 100 && DemoPlots.niceCeiling(0.3) == 0.5 && DemoPlots.niceCeiling(2_000) == 2_000)
    }
}
