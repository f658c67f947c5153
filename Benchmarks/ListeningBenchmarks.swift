// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import Foundation
import JitterBuffer
import JitterBufferEvaluation
import NetworkSimulation
import TestSupport

/// `benchmarks listening`: what a listener of our receive path hears on a network, scored with
/// PESQ-WB against what was said, beside what other playouts of the very same packets at the
/// very same times sound like.
///
/// The talk (Alice, Bob, Alice, Bob with a second of silence after each, 36 s) is encoded once
/// per network as our sender would (24 kb/s, complexity 10, in-band FEC at the plan
/// `LossAdaptation` settles at for the trace's loss — the smallest plan libopus codes, 6 % at
/// 24 kb/s, for any loss in 20 ms packets, for more than 3 % in 10 ms ones — 20 ms packets or
/// `--ptime 10`). One seeded trace per network and seed decides each packet's
/// fate. Then, per row:
/// - **libopus**: every packet decoded in order, no network: the codec alone, the ceiling;
/// - **ours**: the call's jitter buffer (`MediaConfiguration().jitterBuffer`, adaptive, one
///   frame per tick on the receiver's clock, or a device period per tick: `--tick-ms`);
/// - **ours, no stretching**: the same with time-stretching off (`allowsTimeStretching`);
/// - **oracle@ours**: every packet played exactly our mean playout delay after it was sent
///   (`FixedDelayPlayout`: decoded if it had arrived, the next packet's FEC, else libopus
///   concealment): the score that delay buys;
/// - **GStreamer**: GStreamer's receiver (`rtpjitterbuffer do-lost=true ! rtpopusdepay !
///   opusdec plc=true use-inband-fec=true`) fed the same packets over UDP at the trace's
///   arrival times in real time (`GStreamerReplay`; skipped without gst-launch-1.0), with its
///   `latency` at our mean playout delay (the issue's comparison: it plays every packet that
///   long after the first one *arrived*, so its delay from sending is that much more), at the
///   latency that gives our mean delay from sending, and at its default 200 ms. What it plays
///   is what a live sink plays at its buffers' timestamps (`LiveSinkTimeline`: where its jitter
///   buffer paused after a delay spike, silence), and its delay column is the first packet's
///   network delay plus the latency (what such pauses add is not counted: a lower bound).
/// Each utterance is scored on its own (PESQ is made for 8–12 s sentences) and the row shows
/// their mean. Needs Python with `pesq`, like `quality`.
struct ListeningBenchmarks {
    static let group = "listening"

    let report: Report
    /// Trace draws per network.
    var seeds = 1
    /// `--seed-offset`: other draws of the same networks.
    var seedOffset: UInt64 = 0
    /// `--python`: a Python with `pesq`; nil to make or reuse scripts/pesq-venv's.
    var python: String? = nil
    /// `--only NAME`: the networks replayed (all when empty).
    var onlyNetworks: Set<String> = []
    /// `--no-gstreamer`: leaves the real-time GStreamer columns out (a run in seconds, not minutes).
    var withGStreamer = true
    /// `--ptime`: each packet's duration in ms (20 or 10), as the call's `frameDurationMs`.
    var packetTimeMs = 20
    /// `--tick-ms`: the playout tick of ours, at most a packet (a packet's duration: a frame at
    /// a time; shorter: a device period at a time, as the engine plays a 20 ms call on 10 ms
    /// periods).
    var tickMs = 20
    /// `--arrivals-at-ticks`: ours sees each packet at the tick that takes it in, as a call's
    /// audio side does (the engine), not at its arrival on the trace.
    var arrivalsAtTicks = false
    /// The sender's bitrate (the issue's stream: 24 kb/s).
    static let bitsPerSecond = 24_000
    /// GStreamer replays run at once (each is a real-time replay of the whole talk).
    static let gstreamerReplaysAtOnce = 8

    /// One network of the table.
    struct Network {
        var name: String
        var profile: NetworkProfile
        /// Packets sent in the first this many ms arrive together with the first one sent after.
        var startBurstMs: Double = 0
    }

    /// A link that adds only what a relay on loopback adds: 1 ms, a tenth of a ms of jitter.
    static let cleanProfile = NetworkCatalog.clean

    /// The issue's networks, in table order (`NetworkCatalog`'s, as `voicecall relay` names them).
    static let networks: [Network] = [
        Network(name: "clean", profile: cleanProfile),
    ] + [NetworkProfile.classA, .classB, .classC, .classD, .classE, .classF].map { Network(name: "G.1050 " + $0.name, profile: $0) } + [
        Network(name: "3% random", profile: NetworkCatalog.randomLoss(percent: 3)),
        Network(name: "5% bursty", profile: NetworkCatalog.burstyLoss(percent: 5)),
        Network(name: "10% bursty", profile: NetworkCatalog.burstyLoss(percent: 10)),
        Network(name: "40 ms jitter, 1% loss", profile: NetworkCatalog.jitter(meanMs: 40)),
        Network(name: "Wi-Fi mix", profile: NetworkCatalog.wifi),
        Network(name: "start-up burst", profile: cleanProfile, startBurstMs: 100),
    ]

    /// The receivers compared on each row, in column order.
    enum Receiver: String, CaseIterable {
        case libopus = "libopus, every packet"
        case ours = "ours"
        /// Ours starting from what a call before it on the same network learnt (another draw).
        case oursSecondCall = "ours, second call"
        case oursNoStretching = "ours, no stretching"
        case oracle = "oracle@ours"
        case gstreamerAtOurs = "GStreamer latency=ours"
        case gstreamerSameDelay = "GStreamer, our delay"
        case gstreamerDefault = "GStreamer latency=200"

        /// The receivers replayed in real time through GStreamer.
        var isGStreamer: Bool { [.gstreamerAtOurs, .gstreamerSameDelay, .gstreamerDefault].contains(self) }
    }

    /// What one receiver did on one trace.
    struct Playout {
        var pcm: [Int16]
        var meanDelayMs = Double.nan
        var p95DelayMs = Double.nan
        var lateLoss = Double.nan
        var concealed = Double.nan
        var stretched = Double.nan
    }

    /// The talk: its samples and where each utterance starts.
    struct Talk {
        var samples: [Int16] = []
        var utterances: [(name: String, speech: [Int16], start: Int)] = []
        /// Packets of `samplesPerPacket` the talk fills.
        func packets(of samplesPerPacket: Int) -> Int { samples.count / samplesPerPacket }
    }

    static func talk() throws -> Talk {
        let alice = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let bob = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: 48_000)
        var talk = Talk()
        for (name, speech) in [("alice", alice), ("bob", bob), ("alice", alice), ("bob", bob)] {
            talk.utterances.append((name, speech, talk.samples.count))
            talk.samples += speech + [Int16](repeating: 0, count: 48_000)
        }
        // Whole 20 ms frames, so whole packets of every packet time.
        let frame = OpusPacketStream.samplesPerFrame
        talk.samples += [Int16](repeating: 0, count: (frame - talk.samples.count % frame) % frame)
        return talk
    }

    func run() throws {
        let started = Date()
        let python = try self.python ?? PESQScorer.preparedPython()
        let directory = PESQScorer.repositoryRoot.appendingPathComponent("out/listening", isDirectory: true)
        let scorer = try PESQScorer(python: python, directory: directory)
        let talk = try Self.talk()
        let packetCount = talk.packets(of: 48 * packetTimeMs)
        let simulator = { (profile: NetworkProfile, generator: inout SeededGenerator) in
            NetworkSimulator(profile: profile).trace(packetCount: packetCount, packetIntervalMs: Double(packetTimeMs), using: &generator)
        }
        var streams: [Int: OpusPacketStream] = [:]
        var replays: [(network: Int, receiver: Int, seed: UInt64, firstDelayMs: Double, replay: GStreamerReplay)] = []
        // pairs[network][receiver]: the scorer's indices; playouts likewise, per seed.
        var pairs = [[[Int]]](repeating: [[Int]](repeating: [], count: Receiver.allCases.count), count: Self.networks.count)
        var playouts = [[[Playout]]](repeating: [[Playout]](repeating: [], count: Receiver.allCases.count), count: Self.networks.count)
        /// Adds each utterance of `playout` to the scorer.
        func score(_ playout: Playout, network: Network, networkIndex: Int, receiverIndex: Int, seed: UInt64) throws {
            for (utteranceIndex, utterance) in talk.utterances.enumerated() {
                // From where the utterance was sent to 1.5 s past its end: the scoring
                // window finds it in there whatever the playout delay.
                let end = min(playout.pcm.count, utterance.start + utterance.speech.count + 72_000)
                let slice = Array(playout.pcm[min(utterance.start, end)..<end])
                let name = "\(network.name)-\(Receiver.allCases[receiverIndex])-seed\(seed)-\(utteranceIndex)"
                pairs[networkIndex][receiverIndex].append(
                    try scorer.add(referenceName: utterance.name, reference: utterance.speech, degraded: slice, name: name))
            }
        }
        for (networkIndex, network) in Self.networks.enumerated() where onlyNetworks.isEmpty || onlyNetworks.contains(network.name) {
            for seed in 0..<UInt64(seeds) {
                let drawn = seed + seedOffset
                var generator = SeededGenerator(seed: 7_000 + 100 * UInt64(networkIndex) + drawn)
                var trace = simulator(network.profile, &generator)
                if network.startBurstMs > 0 { trace = Self.burstingTheStart(of: trace, untilMs: network.startBurstMs) }
                // The plan our sender settles at for the loss the receiver would report.
                let plan = LossAdaptation.plan(forLossPercent: Int((trace.lossRate * 100).rounded(.up)),
                                               bitsPerSecond: Self.bitsPerSecond, frameDurationMs: packetTimeMs)
                let stream = try streams[plan] ?? OpusPacketStream(
                    pcm: talk.samples, frameCount: packetCount,
                    encoding: .init(bitsPerSecond: Self.bitsPerSecond, complexity: 10, inbandFEC: plan > 0, expectedLossPercent: plan),
                    frameDurationMs: packetTimeMs)
                streams[plan] = stream
                // The call before on the same network: another draw, played by ours to learn from.
                var earlierGenerator = SeededGenerator(seed: 9_000 + 100 * UInt64(networkIndex) + drawn)
                var earlierTrace = simulator(network.profile, &earlierGenerator)
                if network.startBurstMs > 0 { earlierTrace = Self.burstingTheStart(of: earlierTrace, untilMs: network.startBurstMs) }
                let learnt = try AdaptiveJitterBufferReplay.replay(
                    earlierTrace, stream: stream, configuration: MediaConfiguration().jitterBuffer,
                    tickSamples: 48 * tickMs, arrivalsAtTicks: arrivalsAtTicks).learntDelays
                let results = try Self.play(trace, stream: stream, tickMs: tickMs, arrivalsAtTicks: arrivalsAtTicks, learntDelays: learnt)
                for (receiverIndex, playout) in results.enumerated() {
                    playouts[networkIndex][receiverIndex].append(playout)
                    try score(playout, network: network, networkIndex: networkIndex, receiverIndex: receiverIndex, seed: drawn)
                }
                if withGStreamer && GStreamerReplay.gstLaunch != nil {
                    let ours = results[Receiver.allCases.firstIndex(of: .ours)!].meanDelayMs
                    // rtpjitterbuffer plays a packet `latency` after the first packet arrived:
                    // its delay from sending is that packet's network delay plus the latency.
                    let firstDelay = trace.packets.first { $0.arrivalMs != nil }.map { $0.arrivalMs! - $0.sendMs } ?? 0
                    for receiver in Receiver.allCases where receiver.isGStreamer {
                        let oursMs = ours.isFinite ? ours : 0
                        let latency = switch receiver {
                        case .gstreamerDefault: 200
                        case .gstreamerSameDelay: max(1, Int((oursMs - firstDelay).rounded()))
                        default: Int(oursMs.rounded())
                        }
                        let name = "\(network.name)-\(receiver)-seed\(drawn)".replacingOccurrences(of: " ", with: "_")
                        replays.append((networkIndex, Receiver.allCases.firstIndex(of: receiver)!, drawn, firstDelay,
                                        GStreamerReplay(trace: trace, packet: stream.rtpPacket, decoding: .opus, latencyMs: latency,
                                                        output: directory.appendingPathComponent("gst-\(name).wav"))))
                    }
                }
            }
        }
        if !replays.isEmpty {
            let replayStart = Date()
            let results = try GStreamerReplay.runAll(replays.map(\.replay), width: Self.gstreamerReplaysAtOnce)
            var worstLateMs = 0.0, meanLateMs = 0.0
            for (job, result) in zip(replays, results) {
                meanLateMs += result.meanSendLateMs / Double(results.count)
                let delay = job.firstDelayMs + Double(result.latencyMs)
                let playout = Playout(pcm: result.pcm, meanDelayMs: delay, p95DelayMs: delay)
                playouts[job.network][job.receiver].append(playout)
                try score(playout, network: Self.networks[job.network], networkIndex: job.network, receiverIndex: job.receiver, seed: job.seed)
                worstLateMs = max(worstLateMs, result.maximumSendLateMs)
            }
            print(String(format: "%d GStreamer replays in %.0f s (real time, %d at once); packets left %.2f ms after their trace time on "
                         + "average, %.1f ms at worst", replays.count, Date().timeIntervalSince(replayStart), Self.gstreamerReplaysAtOnce,
                         meanLateMs, worstLateMs))
        } else if withGStreamer {
            print("gst-launch-1.0 not found: the GStreamer columns are left out (scripts/install-deps --test installs it)")
        }
        let simulated = Date()
        let scores = try scorer.score()
        printTable(pairs: pairs, playouts: playouts, scores: scores, utteranceCount: talk.utterances.count)
        print(String(format: "%d networks × %d seeds replayed in %.0f s, %d pairs scored in %.0f s; WAVs in %@", Self.networks.count, seeds,
                     simulated.timeIntervalSince(started), scores.count, Date().timeIntervalSince(simulated), directory.path))
    }

    /// Every receiver's playout of `trace`, in `Receiver` order.
    static func play(_ trace: NetworkTrace, stream: OpusPacketStream, tickMs: Int, arrivalsAtTicks: Bool,
                     learntDelays: LearntDelays?) throws -> [Playout] {
        let everyPacket = NetworkTrace(packets: trace.packets.map { TracePacket(sequence: $0.sequence, sendMs: $0.sendMs, arrivalMs: $0.sendMs) })
        let libopus = Playout(pcm: try FixedDelayPlayout(everyPacket, stream: stream, delayMs: 0).pcm)
        let ours = try adaptive(trace, stream: stream, stretching: true, tickMs: tickMs, arrivalsAtTicks: arrivalsAtTicks)
        let oursSecondCall = try adaptive(trace, stream: stream, stretching: true, tickMs: tickMs, arrivalsAtTicks: arrivalsAtTicks,
                                          learntDelays: learntDelays)
        let oursNoStretching = try adaptive(trace, stream: stream, stretching: false, tickMs: tickMs, arrivalsAtTicks: arrivalsAtTicks)
        let fixed = try FixedDelayPlayout(trace, stream: stream, delayMs: ours.meanDelayMs.isFinite ? ours.meanDelayMs : 0)
        let received = trace.packets.filter { $0.arrivalMs != nil }
        let late = received.filter { $0.arrivalMs! > $0.sendMs + fixed.delayMs }.count
        let oracle = Playout(pcm: fixed.pcm, meanDelayMs: fixed.delayMs, p95DelayMs: fixed.delayMs,
                             lateLoss: received.isEmpty ? 0 : Double(late) / Double(received.count),
                             concealed: Double(fixed.concealedPackets + fixed.fecRecoveredPackets) / Double(max(1, trace.packets.count)),
                             stretched: 0)
        return [libopus, ours, oursSecondCall, oursNoStretching, oracle]
    }

    /// The call's jitter buffer on `trace`, recorded.
    static func adaptive(_ trace: NetworkTrace, stream: OpusPacketStream, stretching: Bool, tickMs: Int,
                         arrivalsAtTicks: Bool, learntDelays: LearntDelays? = nil) throws -> Playout {
        var configuration = MediaConfiguration().jitterBuffer
        configuration.allowsTimeStretching = stretching
        configuration.learntDelays = learntDelays
        var pcm: [Int16] = []
        pcm.reserveCapacity(trace.packets.count * stream.samplesPerPacket + 200_000)
        let tickSamples = 48 * tickMs
        let run = try AdaptiveJitterBufferReplay.replay(trace, stream: stream, configuration: configuration, tickSamples: tickSamples,
                                                        arrivalsAtTicks: arrivalsAtTicks) {
            pcm.append(contentsOf: $0)
        }
        let summary = run.summary(trace)
        return Playout(pcm: pcm, meanDelayMs: summary.meanDelayMs, p95DelayMs: summary.p95DelayMs, lateLoss: summary.lateLossCreditingFEC,
                       concealed: summary.concealed,
                       stretched: run.activeTicks == 0 ? 0 : Double(run.stretchedTicks) / Double(run.activeTicks))
    }

    /// `trace` with every packet sent before `untilMs` arriving with the first one sent at or
    /// after it (or as it did, if later): a path that held the call's first packets.
    static func burstingTheStart(of trace: NetworkTrace, untilMs: Double) -> NetworkTrace {
        guard let release = trace.packets.first(where: { $0.sendMs >= untilMs })?.arrivalMs else { return trace }
        var packets = trace.packets
        for index in packets.indices where packets[index].sendMs < untilMs {
            packets[index].arrivalMs = packets[index].arrivalMs.map { max($0, release) }
        }
        return NetworkTrace(packets: packets)
    }

    // MARK: The table

    private func printTable(pairs: [[[Int]]], playouts: [[[Playout]]], scores: [Double?], utteranceCount: Int) {
        print("\n== \(Self.group) (PESQ-WB MOS-LQO, ITU-T P.862.2, mean of the talk's 4 utterances; the same packets at the same times "
              + "for every receiver of a row) ==")
        print("delay = send → play of played packets; late = received packets not played (FEC recoveries credited); concealed and")
        print("stretched = share of \(tickMs) ms ticks; \(packetTimeMs) ms packets; \(seeds) seed(s) per network, seed offset \(seedOffset)")
        print("conv. MOS = the E-model's conversational MOS: PESQ as the listening quality, less the delay impairment of the mean")
        print("delay plus \(otherMouthToEarMs) ms the rest of mouth-to-ear takes for every receiver alike (G.107.1; talker echo at TELR 65)")
        print("after 1st = PESQ of the utterances after the first: the steady state, without the call's start (where a receiver that")
        print("learns the network cannot yet know what a fixed delay chosen afterwards knows)")
        print(Self.row("network", "receiver", "PESQ", "after 1st", "mean ms", "p95 ms", "late %", "concealed %", "stretched %", "conv. MOS"))
        for (networkIndex, network) in Self.networks.enumerated() where !pairs[networkIndex][0].isEmpty {
            var pesq: [Receiver: Double] = [:], steadyPESQ: [Receiver: Double] = [:]
            for (receiverIndex, receiver) in Receiver.allCases.enumerated() where !pairs[networkIndex][receiverIndex].isEmpty {
                let score = Self.mean(pairs[networkIndex][receiverIndex].compactMap { scores[$0] })
                pesq[receiver] = score
                // Each playout added its utterances in talk order.
                let steady = Self.mean(pairs[networkIndex][receiverIndex].enumerated()
                    .filter { $0.offset % utteranceCount != 0 }.compactMap { scores[$0.element] })
                steadyPESQ[receiver] = steady
                let runs = playouts[networkIndex][receiverIndex]
                func column(_ value: (Playout) -> Double, scale: Double = 1) -> String {
                    let values = runs.map(value).filter(\.isFinite)
                    return values.isEmpty ? "" : String(format: "%.1f", Self.mean(values) * scale)
                }
                let delay = Self.mean(runs.map(\.meanDelayMs).filter(\.isFinite))
                let conversational = delay.isFinite
                    ? String(format: "%.2f", Self.conversationalMOS(pesq: score, delayMs: delay, otherMouthToEarMs: otherMouthToEarMs)) : ""
                print(Self.row(receiverIndex == 0 ? network.name : "", receiver.rawValue, String(format: "%.2f", score),
                               String(format: "%.2f", steady), column(\.meanDelayMs), column(\.p95DelayMs), column(\.lateLoss, scale: 100),
                               column(\.concealed, scale: 100), column(\.stretched, scale: 100), conversational))
                if receiver == .ours {
                    let meanDelay = Self.mean(runs.map(\.meanDelayMs).filter(\.isFinite))
                    report.add(BenchmarkFigure(group: Self.group, name: "\(network.name) ours mean delay", value: meanDelay, unit: "ms",
                                               baseline: nil, baselineValue: nil, ratio: nil), quiet: true)
                }
            }
            for (receiver, baseline) in [(Receiver.ours, Receiver.libopus), (.ours, .oracle), (.oursSecondCall, .oracle), (.oursNoStretching, .oracle),
                                         (.ours, .gstreamerAtOurs), (.ours, .gstreamerSameDelay), (.ours, .gstreamerDefault)] {
                guard let value = pesq[receiver], let baselineValue = pesq[baseline] else { continue }
                report.add(BenchmarkFigure(group: Self.group, name: "\(network.name) \(receiver.rawValue) PESQ-WB", value: value,
                                           unit: "MOS-LQO", baseline: baseline.rawValue, baselineValue: baselineValue,
                                           ratio: value / baselineValue), quiet: true)
            }
            if let value = steadyPESQ[.ours], let baselineValue = steadyPESQ[.oracle] {
                report.add(BenchmarkFigure(group: Self.group, name: "\(network.name) ours PESQ-WB after the first utterance", value: value,
                                           unit: "MOS-LQO", baseline: Receiver.oracle.rawValue, baselineValue: baselineValue,
                                           ratio: value / baselineValue), quiet: true)
            }
        }
    }

    private static func mean(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }

    /// Mouth-to-ear outside the receive path's send → play delay, the same for every
    /// receiver: a frame (`endpointDelayMs` counts 20 ms), libopus's 6.5 ms look-ahead, a 10 ms
    /// device period each end.
    var otherMouthToEarMs: Double { PlayoutDelayPricing.endpointDelayMs - 20 + Double(packetTimeMs) }

    /// The E-model's conversational MOS (G.107.1 on PESQ-WB's scale, as `CallQualityEstimate`
    /// rates a call) for a receiver whose audio scored `pesq` at a send → play delay of
    /// `delayMs`: PESQ taken as the listening quality (R by inverting G.107 Annex B, R_WB =
    /// 1.29 R), less the delay impairment Id,WB of that mouth-to-ear, `delayMs` plus
    /// `otherMouthToEarMs` (talker echo at TELR 65, listener echo over twice the delay, absolute
    /// delay).
    static func conversationalMOS(pesq: Double, delayMs: Double, otherMouthToEarMs: Double) -> Double {
        var low = 0.0, high = 100.0
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if EModel.meanOpinionScore(rating: middle) < pesq { low = middle } else { high = middle }
        }
        let model = WidebandEModel(mouthToEarMs: delayMs + otherMouthToEarMs)
        let rating = (low + high) / 2 * WidebandEModel.scaleFactor - model.delayImpairment
        return EModel.meanOpinionScore(rating: rating / WidebandEModel.scaleFactor)
    }

    private static func row(_ columns: String...) -> String {
        let widths = [24, 24, 7, 11, 9, 9, 8, 13, 13, 0]
        return zip(columns, widths).map { text, width in
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }.joined()
    }
}
