// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Foundation
import Glibc
import Locking
import Testing
import TestSupport

/// A child process left running while the test does something else (a receiver waiting for
/// a sender), with its standard error collected as it comes, so a test can wait for a line
/// (the receiver saying where it listens) instead of sleeping.
final class BackgroundProcess: Sendable {
    let process: Process
    private let errors = Pipe()
    private let output = Pipe()
    /// Standard error so far, and whether it reached its end.
    private let collected = Locked<(text: Data, ended: Bool)>((Data(), false))

    /// Starts `executable arguments…`.
    init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        self.process = process
        process.executableURL = executable
        process.arguments = arguments
        process.standardError = errors
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read standard error on its own thread, so a chatty child never blocks on a full pipe.
        let handle = errors.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                collected.withLock { $0.text.append(chunk) }
            }
            collected.withLock { $0.ended = true }
        }
    }

    /// Standard error so far.
    var standardErrorSoFar: String { String(decoding: collected.withLock { $0.text }, as: UTF8.self) }

    /// Waits until a line of standard error contains `text` and returns that line; nil when the
    /// process ended (or `timeoutSeconds` passed: a bound for a stuck child) without one.
    func waitForLine(containing text: String, timeoutSeconds: Double = 60) -> String? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        while true {
            let (data, ended) = collected.withLock { ($0.text, $0.ended) }
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            // A line counts once it is complete (followed by a newline), or at the end.
            if let line = lines.dropLast(ended ? 0 : 1).first(where: { $0.contains(text) }) { return String(line) }
            if ended || Date() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Waits for the end (killing the process after `seconds`) and returns status and stderr.
    func wait(timeoutSeconds seconds: Double) -> (status: Int32, standardError: String) {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            process.terminate()
            let grace = Date().addingTimeInterval(2)
            while process.isRunning && Date() < grace { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let readDeadline = Date().addingTimeInterval(10)
        while !collected.withLock({ $0.ended }) && Date() < readDeadline { usleep(5_000) }
        return (process.terminationStatus, standardErrorSoFar)
    }
}

/// What the real-call tests share: free ports, keys, the speech excerpt and the comparison.
enum RealCallSupport {
    /// A UDP port nothing is bound to on 127.0.0.1 right now (the system's choice for port 0).
    /// Only for a port that must stay closed (an unreachable peer) or one a program that
    /// cannot bind port 0 and say so needs (GStreamer's udpsrc, then `waitUntilBound`): a
    /// process of ours binds port 0 itself and says where it listens (`listeningPort`).
    static func freePort() -> UInt16 { LoopbackUDPPort.free() }

    /// The port a `voicecall receive --listen 127.0.0.1:0` bound, from its "listening on
    /// 127.0.0.1:PORT" line: once it is printed the socket is bound, and nothing sent after is
    /// lost for want of a receiver.
    static func listeningPort(of receiver: BackgroundProcess) throws -> UInt16 {
        let line = try #require(receiver.waitForLine(containing: "listening on"), "no listening line: \(receiver.standardErrorSoFar)")
        let address = try #require(line.split(separator: "listening on ").last?.split(separator: ",").first, "\(line)")
        return try #require(address.split(separator: ":").last.flatMap { UInt16($0) }, "\(line)")
    }

    /// Waits until some socket is bound to UDP 127.0.0.1:`port` (`/proc/net/udp`), up to
    /// `timeoutSeconds` (a bound for a child that never gets there); whether it is.
    static func waitUntilBound(port: UInt16, timeoutSeconds: Double = 60) -> Bool {
        LoopbackUDPPort.waitUntilBound(port, timeoutSeconds: timeoutSeconds)
    }

    /// 30 bytes of AES-CM-128 key and salt from a seeded generator.
    static func keyAndSalt(seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<30).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The key as GStreamer's srtpenc/srtpdec take it: hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// The key as SDES `inline:` carries it: base64.
    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// A temporary directory for one test's files.
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("voicecall-realcall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `seconds` of the Alice speech fixture (48 kHz mono) written as a WAV in `directory`.
    static func speech(seconds: Double, from offsetSeconds: Double = 0, fixture: String = SpeechFixture.alice,
                       in directory: URL, name: String = "in.wav") throws -> (url: URL, samples: [Int16]) {
        let all = try SpeechFixture.samples(fixture, sampleRate: 48_000)
        let start = Int(offsetSeconds * 48_000)
        let samples = Array(all[start..<min(all.count, start + Int(seconds * 48_000))])
        let url = directory.appendingPathComponent(name)
        try WAVAudio(sampleRate: 48_000, channelCount: 1, samples: samples).write(to: url)
        return (url, samples)
    }

    /// How well the received WAV carries `reference` (segmental correlation over 100 ms
    /// segments, any delay up to 0.5 s) and its length in seconds.
    static func similarity(of received: URL, to reference: [Int16]) throws -> (correlation: Double, seconds: Double) {
        let audio = try WAVAudio(contentsOf: received)
        var mono = audio.samples
        if audio.channelCount > 1 { mono = stride(from: 0, to: audio.samples.count, by: audio.channelCount).map { audio.samples[$0] } }
        let correlation = SignalComparison.segmentalCorrelation(reference: reference, signal: mono, segmentLength: 4_800, maxLag: 24_000)
        return (correlation, Double(mono.count) / Double(audio.sampleRate))
    }

    /// What a two-process `voicecall call` left: each side's end, the offer and answer it
    /// wrote, and how well each recording carries the other's speech.
    struct TwoWayCall {
        var alice: (status: Int32, standardError: String)
        var bob: (status: Int32, standardError: String)
        var offer: String
        var answer: String
        var heardByBob: (correlation: Double, seconds: Double)
        var heardByAlice: (correlation: Double, seconds: Double)
        var bobHeardHimself: Double
    }

    /// Where one side of a two-process call runs: a network namespace (nil: the test's own)
    /// and its `--listen`.
    struct CallSide {
        var namespace: String?
        var listen: String
        /// On 127.0.0.1 in the test's namespace, at a port of its own choosing.
        static let loopback = CallSide(namespace: nil, listen: "127.0.0.1:0")

        /// `voicecall arguments…` started where this side runs.
        func start(_ voicecall: URL, _ arguments: [String]) throws -> BackgroundProcess {
            guard let namespace else { return try BackgroundProcess(voicecall, arguments) }
            let (executable, wrapped) = NATTestbed.command(in: namespace, voicecall.path, arguments)
            return try BackgroundProcess(executable, wrapped)
        }
    }

    /// Two `voicecall call` processes with `options` each (on 127.0.0.1 unless placed
    /// elsewhere), the offer and answer through files in `directory`: Alice offers 2 s of one
    /// excerpt, Bob answers with 2 s of another (the same speaker: another voice through Opus
    /// scores lower on this waveform measure even over a clean call, which would make the bound
    /// about the voice).
    static func callBothWays(_ voicecall: URL, options: [String], in directory: URL, timeoutSeconds: Double = 20,
                             alice aliceSide: CallSide = .loopback, bob bobSide: CallSide = .loopback) throws -> TwoWayCall {
        let (aliceIn, aliceSpeech) = try speech(seconds: 2, from: 1, in: directory, name: "alice.wav")
        let (bobIn, bobSpeech) = try speech(seconds: 2, from: 4, in: directory, name: "bob.wav")
        let offer = directory.appendingPathComponent("offer.sdp").path
        let answer = directory.appendingPathComponent("answer.sdp").path
        let aliceOut = directory.appendingPathComponent("heard-by-alice.wav")
        let bobOut = directory.appendingPathComponent("heard-by-bob.wav")
        // Port 0: each binds its own, and the offer and answer carry them.
        let alice = try aliceSide.start(voicecall, ["call"] + options + ["--listen", aliceSide.listen, "--input", aliceIn.path,
                                                                         "--output", aliceOut.path, "--offer-out", offer, "--answer-in", answer])
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: offer) && alice.process.isRunning && Date() < deadline { usleep(20_000) }
        let bob = try bobSide.start(voicecall, ["call"] + options + ["--listen", bobSide.listen, "--input", bobIn.path,
                                                                     "--output", bobOut.path, "--sdp", offer, "--answer-out", answer])
        let bobEnd = bob.wait(timeoutSeconds: timeoutSeconds)
        let aliceEnd = alice.wait(timeoutSeconds: timeoutSeconds)
        return TwoWayCall(alice: aliceEnd, bob: bobEnd, offer: offer, answer: answer,
                          // A side that failed wrote no recording: nothing heard (its exit status and
                          // standard error say why).
                          heardByBob: (try? similarity(of: bobOut, to: aliceSpeech)) ?? (0, 0),
                          heardByAlice: (try? similarity(of: aliceOut, to: bobSpeech)) ?? (0, 0),
                          bobHeardHimself: (try? similarity(of: bobOut, to: bobSpeech).correlation) ?? 0)
    }

    /// Both exited 0, and each recording carries the other's 2 s of speech, ending with it.
    static func expectHeardBothWays(_ call: TwoWayCall, _ label: String) {
        #expect(call.alice.status == 0, "\(call.alice.standardError)")
        #expect(call.bob.status == 0, "\(call.bob.standardError)")
        print("\(label): alice → bob \(call.heardByBob.correlation) (\(call.heardByBob.seconds) s), bob → alice \(call.heardByAlice.correlation) (\(call.heardByAlice.seconds) s)")
        #expect(call.heardByBob.correlation > sameSpeech)
        #expect(call.heardByAlice.correlation > sameSpeech)
        // The recordings end with the speech, not with seconds of concealment after it.
        #expect(abs(call.heardByBob.seconds - 2) < 0.5 && abs(call.heardByAlice.seconds - 2) < 0.5,
                "\(call.heardByBob.seconds) s, \(call.heardByAlice.seconds) s")
    }

    /// The segmental correlation above which received audio counts as the speech sent.
    /// Measured alone: 0.84–0.94; with other real-time tests running on 2 cores, down to
    /// 0.70 (late frames make the jitter buffer stretch time). Another excerpt, or garbled
    /// audio, stays below 0.5.
    static let sameSpeech = 0.65

    /// gst-launch-1.0's path, or nil when GStreamer's tools are not installed.
    static let gstLaunch: String? = ["/usr/bin/gst-launch-1.0", "/usr/local/bin/gst-launch-1.0"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Whether GStreamer has the element `name` (`gst-inspect-1.0 --exists`).
    static func hasGStreamerElement(_ name: String) -> Bool {
        guard let launch = gstLaunch else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: launch).deletingLastPathComponent().appendingPathComponent("gst-inspect-1.0")
        process.arguments = ["--exists", name]
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}
