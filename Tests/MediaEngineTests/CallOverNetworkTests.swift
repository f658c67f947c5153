// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import Opus
import Testing
import TestSupport
import NetworkSimulation

/// Two calls end to end on the virtual clock through the G.1050 network classes A–F: speech
/// arrives, the receiver's statistics match what the network did, DTX gaps play comfort noise.
@Suite struct CallOverNetworkTests {
    static let alice = try! SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
    static let bob = try! SpeechFixture.samples(SpeechFixture.bob, sampleRate: 48_000)
    /// 8 s: the fixtures' length.
    static let frames = 400
    /// 200 ms segments, lag up to 1.2 s (class F's delay plus the jitter buffer's: its target
    /// reaches 500 ms there, where the E-model prices the late packets of its heavy tail), or
    /// `maxLag` samples.
    static func quality(_ reference: [Int16], _ heard: [Int16], maxLag: Int = 57_600) -> Double {
        SignalComparison.segmentalCorrelation(reference: reference, signal: heard, segmentLength: 2_880, maxLag: maxLag)
    }

    /// `quality` of `seconds` of `speech` from the first frame its sender sent: a call keyed
    /// by a handshake encodes and discards its frames until the keys are set (the sender's
    /// `discardedBeforeKeys`, one packet a frame), however long a loaded machine takes over
    /// the handshake. The listener's device ran meanwhile, so what it heard of that frame lies
    /// as far into its recording: the lag window is widened by as much.
    static func qualityFromFirstSentFrame(_ speech: [Int16], discardedBeforeKeys: Int, heard: [Int16], seconds: Int = 2) -> Double {
        let length = seconds * 48_000
        let start = min(discardedBeforeKeys * MediaConfiguration().samplesPerFrame, max(speech.count - length, 0))
        return quality(Array(speech[start..<min(start + length, speech.count)]), heard, maxLag: start + 57_600)
    }

    /// Alice's speech through Opus alone (the same settings, no network): the ceiling a call
    /// can reach, against which the network classes are judged.
    static let codecOnlyDecoded: [Int16] = {
        let configuration = MediaConfiguration()
        let encoder = try! OpusEncoder(sampleRate: 48_000, channels: 1, application: .voip)
        try! encoder.setBitrate(.bitsPerSecond(configuration.bitrate))
        try! encoder.setComplexity(configuration.complexity)
        try! encoder.setInbandFEC(configuration.inbandFEC)
        try! encoder.setExpectedPacketLoss(percent: configuration.expectedPacketLossPercent)
        let decoder = try! OpusDecoder(sampleRate: 48_000, channels: 1)
        var decoded: [Int16] = []
        var packet = [UInt8](repeating: 0, count: 1_500)
        var pcm = [Int16](repeating: 0, count: 960)
        for index in 0..<frames {
            let frame = CallLoop.frame(index, of: alice, length: 960)
            let length = try! frame.withUnsafeBufferPointer { frame in
                try packet.withUnsafeMutableBytes { try encoder.encode(frame, into: $0) }
            }
            _ = try! packet.withUnsafeBytes { packet in
                try pcm.withUnsafeMutableBufferPointer { try decoder.decode(UnsafeRawBufferPointer(rebasing: packet[0..<length]), into: $0) }
            }
            decoded += pcm
        }
        return decoded
    }()
    static let codecOnly = quality(alice, codecOnlyDecoded)
    static let codecOnlyLate = quality(Array(alice[96_000...]), Array(codecOnlyDecoded[96_000...]))

    /// The least correlation each class must keep, against the codec alone (≈ 0.95 on this
    /// fixture and metric at the default complexity 10 without FEC). What the network takes is
    /// the share of frames concealed — late or lost packets, and the waits for overtaken ones
    /// while the jitter buffer learns a delay from its 60 ms start in an 8 s call — which grows
    /// with the class's jitter. FEC starts off (a clean network needs none) and comes on with
    /// the far end's first RTCP reports of loss or of jitter above a packet interval, a few
    /// seconds in: class F, whose packets overtake each other from the first second, pays for
    /// those seconds most. Measured with the E-model's target (stop 44): A 0.95, B 0.94, C 0.92,
    /// bursty C 0.91, D 0.89, E 0.87, F 0.86. Before it: A 0.96, B 0.94, C 0.89, bursty C 0.91,
    /// D 0.90, E 0.88, F 0.86 (with playout stretching in pauses and waiting only below its target; before,
    /// A 0.90, B 0.94, C 0.93, bursty C 0.87, D 0.89, E 0.88, F 0.72). Class C is the one
    /// that fell, yet PESQ-WB of the very same calls says the listener gained there (2.27 →
    /// 2.56; over the seven 1.98 → 2.28): this waveform metric charges a pitch period moved
    /// more than a listener does. The bounds sit about 0.03–0.04 under the measurements: a
    /// broken jitter buffer, FEC or SRTP path falls far below.
    static let minimumCorrelation: [String: Double] = [
        "A": 0.92, "B": 0.90, "C": 0.85, "C bursty": 0.87, "D": 0.86, "E": 0.84, "F": 0.82,
    ]

    @Test(arguments: ["A", "B", "C", "C bursty", "D", "E", "F"])
    func speechArrivesAndStatisticsMatchTheNetwork(networkClass: String) async throws {
        try await offCooperativePool {
            var profile = try #require(NetworkProfile.g1050Class(named: String(networkClass.prefix(1))))
            if networkClass.hasSuffix("bursty") { profile = profile.withBurstyLoss() }
            var generator = SeededGenerator(seed: 42)
            let trace = NetworkSimulator(profile: profile).trace(packetCount: Self.frames, using: &generator)
            let link = SimulatedLink(trace: trace, duplicateProbability: 0.01, seed: 7)
            let loop = try CallLoop(aliceToBob: link)
            loop.run(frames: Self.frames + 50,
                     aliceMicrophone: { index, _ in CallLoop.frame(index, of: Self.alice, length: 960) },
                     bobMicrophone: { index, _ in CallLoop.frame(index, of: Self.bob, length: 960) })
            let statistics = loop.bob.call.statistics
            let inbound = statistics.inbound

            // A lag up to 1.5 s: a slow class's playout may start at the jitter buffer's 1 s
            // maximum when its first packets come that late (`StartUpLateness`; this call's class
            // F starts 1.25 s after sending, PESQ-WB 2.31 → 3.74 with it, where a 1.2 s search read
            // the correlation 0.91 → 0.73).
            let heard = Self.quality(Self.alice, loop.bob.played, maxLag: 72_000)
            let minimum = try #require(Self.minimumCorrelation[networkClass])
            #expect(heard >= minimum, "class \(networkClass): correlation \(heard), codec alone \(Self.codecOnly)")
            #expect(heard <= Self.codecOnly + 0.01, "nothing beats the codec alone")
            let wrongTalker = Self.quality(Self.bob, loop.bob.played, maxLag: 72_000)
            // Two voices correlate by chance at 0.48–0.52 over a 1.5 s search; Alice's at 0.91–0.96.
            #expect(wrongTalker < heard - 0.3, "Bob hears Alice, not himself: \(wrongTalker) against \(heard)")

            // What the network did, as the receiver counted it.
            #expect(inbound.packetsReceived == link.delivered)
            #expect(abs(inbound.packetsLost - link.lost) <= 1, "lost \(inbound.packetsLost), injected \(link.lost) (−1: a packet overtaking the first)")
            #expect(inbound.packetsReordered == link.reordered)
            #expect(statistics.transport.srtp.replays == link.duplicated, "network duplicates are SRTP replays, dropped before RTP")
            #expect(inbound.packetsDiscarded <= link.reordered, "only overtaken packets come too late")
            if link.lost > 0 { #expect(inbound.fecPacketsRecovered > 0) }
            #expect(inbound.totalSamplesReceived == (Self.frames + 50) * 960)
            #expect(statistics.transport.srtp.authFailures == 0)
        }
    }

    /// DTX: the sender stops sending in silence; the receiver plays its decoder's comfort
    /// noise there, near the sender's background level, not digital silence.
    @Test func dtxGapsPlayComfortNoise() throws {
        var configuration = MediaConfiguration()
        configuration.discontinuousTransmission = true
        var generator = SeededGenerator(seed: 3)
        let noise = (0..<(7 * 48_000)).map { _ in Int16.random(in: -100...100, using: &generator) }  // ≈ −55 dBFS
        var input = noise
        for index in 0..<96_000 {
            input[index] = Int16(clamping: Int(input[index]) + Int(Self.alice[index]))
            input[5 * 48_000 + index] = Int16(clamping: Int(input[5 * 48_000 + index]) + Int(Self.alice[96_000 + index]))
        }
        let loop = try CallLoop(configuration: configuration)
        loop.run(frames: 350, aliceMicrophone: { index, _ in CallLoop.frame(index, of: input, length: 960) },
                 bobMicrophone: { _, _ in [Int16](repeating: 0, count: 960) })
        let sent = loop.alice.call.statistics.outbound
        let inbound = loop.bob.call.statistics.inbound
        #expect(sent.framesSuppressedByDTX > 50, "the sender went quiet in the pause")
        #expect(inbound.silentConcealedSamples > 50 * 960)
        let background = SignalComparison.rmsDecibels(noise[(3 * 48_000)..<(4 * 48_000)])
        let played = SignalComparison.rmsDecibels(loop.bob.played[(3 * 48_000)..<(4 * 48_000)])
        #expect(played > background - 12 && played < background + 6, "comfort noise \(played) dBFS, sender's background \(background) dBFS")
        let speech = Self.quality(Array(Self.alice[96_000..<192_000]), Array(loop.bob.played[(5 * 48_000)...]))
        #expect(speech > 0.8, "speech after the pause plays again: \(speech)")
    }
}
