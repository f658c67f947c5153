// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import NetworkSimulation
import SRTP

/// `voicecall demo`'s command line, parsed and range-checked before anything runs: every
/// number has a range and a value outside it is a usage error naming the option, never a trap.
struct DemoOptions {
    /// Media parameters both softphones use (`--bitrate`, `--ptime`, `--dtx`, `--srtp`).
    var media = MediaConfiguration()
    /// The network between them: a G.1050 class with bursty last-mile loss, or nil for a clean
    /// loopback (`--network none`).
    var network: NetworkProfile? = DemoOptions.defaultNetwork
    /// Call length in seconds; nil: the longer input's length.
    var seconds: Double?
    /// Seed of the network simulator's traces (`--seed`).
    var seed: UInt64 = 1
    /// An ALSA PCM for Alice's microphone and loudspeaker (`--device`); nil: WAV devices.
    var device: String?
    /// Virtual clock, as fast as the CPU goes (`--fast`).
    var fast = false
    /// Both talk from the start (`--together`); by default Bob replies once Alice is done, so
    /// each direction is heard alone and echo suppression is measured in single talk.
    var together = false
    /// Where the received audio goes (`--out`).
    var outDirectory = "out"
    /// Where the figures go as JSON (`--json`), if anywhere.
    var jsonPath: String?
    /// Where the SVG plots go (`--plot`), if anywhere.
    var plotDirectory: String?
    /// What Alice says (`--alice`).
    var alicePath = DemoOptions.fixtures.appendingPathComponent("alice-en-us-48k.wav").path
    /// What Bob says (`--bob`).
    var bobPath = DemoOptions.fixtures.appendingPathComponent("bob-en-gb-48k.wav").path

    /// The longest demo call, in seconds (10 hours): recordings are preallocated.
    static let maximumSeconds = DemoCall.maximumSeconds
    /// How long the call goes on after the last word is spoken (without `--seconds`), so the
    /// other side hears it: the path, the jitter buffer and the devices hold it back. Hanging
    /// up as Bob's input ended cut his last words under any network delay, and
    /// `scripts/score-demo` then matched his speech too early (2.71 against 3.58 PESQ-WB at
    /// 114 ms mouth-to-ear on class B).
    static let lastWordsHeardSeconds = 1.0

    /// The default network: G.1050 class C (16–64 ms, 16 ms jitter, a 128 ms outage per half
    /// hour) with Wi-Fi/LTE-style bursty loss on the last mile.
    static let defaultNetwork = withLastMileLoss(NetworkProfile.classC)

    /// Share of packets the last mile loses, in bursts (Gilbert–Elliott, r = 0.5: two packets
    /// on average): 2 %, a fair Wi-Fi link. (`make quality`'s "C bursty", p = 0.05, loses 9 %:
    /// a link a call barely survives, no first impression.)
    static let lastMileLossRate = 0.02

    /// `profile` with bursty last-mile loss: its own loss rate or `lastMileLossRate`, whichever
    /// is higher (class H's 1 % stays 2 %; its outages and reordering stay its own).
    static func withLastMileLoss(_ profile: NetworkProfile) -> NetworkProfile {
        let rate = max(profile.loss.stationaryLossRate, lastMileLossRate)
        let badToGood = 0.5
        return profile.withBurstyLoss(goodToBad: rate * badToGood / (1 - rate), badToGood: badToGood)
    }

    /// Default inputs: the committed speech fixtures of this checkout.
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("vectors/speech")

    /// The network named on the command line: `A`…`H` (any case; with bursty last-mile
    /// loss), or `none` for a clean loopback.
    static func network(named name: String) throws(CommandError) -> NetworkProfile? {
        if name.lowercased() == "none" { return nil }
        guard name.count == 1, let profile = NetworkProfile.g1050Class(named: name) else {
            throw .invalidValue(option: "--network", value: name, expected: "a G.1050 class A…H or none")
        }
        return withLastMileLoss(profile)
    }

    /// Parses and checks `arguments` (consuming them); throws on anything it does not take.
    init(_ arguments: inout CommandArguments) throws(CommandError) {
        if let path = try arguments.value("--alice") { alicePath = path }
        if let path = try arguments.value("--bob") { bobPath = path }
        seconds = try arguments.seconds("--seconds", upTo: Self.maximumSeconds)
        if let directory = try arguments.value("--out") { outDirectory = directory }
        jsonPath = try arguments.value("--json")
        plotDirectory = try arguments.value("--plot")
        fast = arguments.flag("--fast")
        together = arguments.flag("--together")
        if let name = try arguments.value("--network") { network = try Self.network(named: name) }
        if let seed = try arguments.integer("--seed", in: 0...Int(Int32.max)) { self.seed = UInt64(seed) }
        device = try arguments.value("--device")
        if device != nil && fast {
            throw .usage("--device runs in real time: it cannot go with --fast")
        }
        // --profile is the older name of --srtp.
        for option in ["--srtp", "--profile"] {
            if let name = try arguments.value(option) {
                guard let profile = SRTPProfile.allCases.first(where: { $0.sdesName == name }) else {
                    throw .invalidValue(option: option, value: name,
                                        expected: "one of \(SRTPProfile.allCases.map(\.sdesName).joined(separator: ", "))")
                }
                media.srtpProfile = profile
            }
        }
        if let bitrate = try arguments.integer("--bitrate", in: 6_000...510_000) {
            media.bitrate = bitrate
            media.minimumBitrate = min(media.minimumBitrate, bitrate)
        }
        if let ptime = try arguments.integer("--ptime", oneOf: [10, 20, 40, 60]) { media.frameDurationMs = ptime }
        media.discontinuousTransmission = arguments.flag("--dtx")
        do {
            try arguments.finish()
        } catch let error as CommandError {
            throw error
        } catch {
            throw .usage("\(error)")
        }
        do {
            try media.validate()
        } catch {
            throw .usage("\(error)")
        }
    }

    /// How the network is named in output: "C+bursty" or "none".
    var networkName: String { network?.name ?? "none" }
}
