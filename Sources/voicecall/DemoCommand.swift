import AudioDevices
import Foundation
import MediaEngine
import SRTP

/// `voicecall demo`: a two-party call over real UDP + SRTP on loopback, on built-in defaults.
struct DemoCommand {
    static let usage = """
        voicecall demo [--alice WAV] [--bob WAV] [--seconds N] [--out DIR] [--fast]
                       [--profile SUITE] [--bitrate BPS] [--ptime MS] [--dtx]
          Two endpoints in this process exchange speech over UDP on 127.0.0.1 with SRTP keys
          generated now and exchanged as SDES a=crypto lines, Opus in RTP. Writes what each
          side heard as WAV files and prints packets, bytes, bitrate and SRTP failures.
          --alice/--bob   mono 48 kHz WAV each side speaks (default: the speech fixtures)
          --seconds N     call length (default: the longer input)
          --out DIR       where the received audio goes (default: out)
          --fast          run as fast as possible instead of in real time
          --profile SUITE SRTP suite: \(SRTPProfile.allCases.map(\.sdesName).joined(separator: ", "))
        """

    /// Default inputs: the committed speech fixtures of this checkout.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("vectors/speech")

    static func run(_ arguments: inout CommandArguments) throws {
        var configuration = MediaConfiguration()
        let alicePath = try arguments.value("--alice") ?? fixtures.appendingPathComponent("alice-en-us-48k.wav").path
        let bobPath = try arguments.value("--bob") ?? fixtures.appendingPathComponent("bob-en-gb-48k.wav").path
        let seconds = try arguments.seconds("--seconds", upTo: DemoCall.maximumSeconds)
        let outDirectory = try arguments.value("--out") ?? "out"
        let fast = arguments.flag("--fast")
        if let name = try arguments.value("--profile") {
            guard let profile = SRTPProfile.allCases.first(where: { $0.sdesName == name }) else {
                throw CommandError.usage("unknown SRTP suite \(name)")
            }
            configuration.srtpProfile = profile
        }
        if let bitrate = try arguments.integer("--bitrate", in: 6_000...510_000) { configuration.bitrate = bitrate }
        if let ptime = try arguments.integer("--ptime", oneOf: [10, 20, 40, 60]) { configuration.frameDurationMs = ptime }
        configuration.discontinuousTransmission = arguments.flag("--dtx")
        try arguments.finish()
        try configuration.validate()

        let call = DemoCall(
            aliceInput: try WAVAudio(contentsOf: URL(fileURLWithPath: alicePath)),
            bobInput: try WAVAudio(contentsOf: URL(fileURLWithPath: bobPath)),
            configuration: configuration, durationSeconds: seconds, pacing: fast ? .asFastAsPossible : .realTime
        )
        print("voicecall demo: alice ↔ bob over UDP on \(call.host), SRTP \(configuration.srtpProfile.sdesName), "
              + "Opus \(configuration.sampleRate / 1_000) kHz \(configuration.frameDurationMs) ms \(configuration.bitrate / 1_000) kb/s"
              + " c\(configuration.complexity)\(configuration.inbandFEC ? ", FEC on reported loss" : "")\(configuration.discontinuousTransmission ? " DTX" : ""), "
              + (fast ? "as fast as possible" : "real time"))
        let result = try call.run()
        print("  offer  \(redacted(result.offer))")
        print("  answer \(redacted(result.answer))")
        print(String(format: "  %.2f s of audio each way in %.2f s", result.callSeconds, result.elapsedSeconds))
        for direction in [result.aliceToBob, result.bobToAlice] { print(describe(direction)) }

        let directory = URL(fileURLWithPath: outDirectory, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let heardByBob = directory.appendingPathComponent("received-by-bob.wav")
        let heardByAlice = directory.appendingPathComponent("received-by-alice.wav")
        try result.receivedByBob.write(to: heardByBob)
        try result.receivedByAlice.write(to: heardByAlice)
        print("  wrote \(heardByBob.path) (alice's voice as bob heard it)")
        print("  wrote \(heardByAlice.path) (bob's voice as alice heard it)")
        let failures = [result.aliceToBob, result.bobToAlice].reduce(0) { $0 + $1.receiver.transport.srtp.authFailures + $1.receiver.transport.srtp.replays }
        if failures > 0 { throw CommandError.failed("\(failures) SRTP failures on a clean loopback") }
    }

    /// The SDES line's tag and suite, and no key material at all (even a few base64
    /// characters of a key are bits of it an observer of the terminal or a log should not get).
    static func redacted(_ line: String) -> String {
        guard let attribute = try? SDESCryptoAttribute(parsing: line) else { return "a=crypto: (not shown)" }
        return "a=crypto:\(attribute.tag) \(attribute.profile.sdesName) inline:<key not shown>"
    }

    static func describe(_ direction: DirectionSummary) -> String {
        let sent = direction.sender.transport
        let received = direction.receiver
        let inbound = received.inbound
        let srtp = received.transport.srtp
        let delayMs = inbound.jitterBufferEmittedCount > 0 ? inbound.jitterBufferDelay / Double(inbound.jitterBufferEmittedCount) * 1_000 : 0
        return String(format: "  %@ → %@: sent %d packets, %d bytes (%.1f kb/s SRTP); received %d, lost %d, discarded %d, "
                      + "SRTP auth failures %d, replays %d, malformed %d; jitter buffer %.0f ms; concealed %d samples, FEC-recovered %d",
                      direction.from, direction.to, sent.datagramsSent, sent.bytesSent, direction.bitrateKbps,
                      inbound.packetsReceived, inbound.packetsLost, inbound.packetsDiscarded, srtp.authFailures, srtp.replays,
                      srtp.malformed + inbound.malformedPackets, delayMs, inbound.concealedSamples, inbound.fecPacketsRecovered)
    }
}
