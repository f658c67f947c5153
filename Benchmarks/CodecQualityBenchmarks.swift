// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import AudioDevices
import CSpanDSP
import Foundation
import JitterBufferEvaluation
import NetworkSimulation
import TestSupport

/// `benchmarks codec-quality`: what the listener hears from G.711 and G.722 as a 48 kHz call
/// plays them (decoded, concealed and resampled by `AudioCodec.makeDecoder`), scored with
/// PESQ — narrow-band P.862 for G.711, wide-band P.862.2 for G.722 — against the same audio
/// coded by GStreamer's own elements (`mulawenc`/`alawenc`/`avenc_g722` and their decoders,
/// the interop anchor) on a clean network, and under loss against GStreamer's receiver
/// (`rtpjitterbuffer` and the stock depayloader and decoder, fed the same packets over UDP in
/// real time), spandsp's G.711 PLC (an Appendix I descendant) and silence in the gaps, on the
/// same lost packets.
struct CodecQualityBenchmarks {
    static let group = "codec-quality"
    static let callRate = 48_000
    static let frame = 960

    let report: Report
    let seeds: Int
    /// `--python`: a Python with `pesq`; nil to make or reuse scripts/pesq-venv's.
    var python: String? = nil

    /// A loss pattern: the share lost and the mean burst length (1: independent losses).
    struct Network {
        var name: String
        var lossRate: Double
        var meanBurst: Double
    }

    static let networks = [
        Network(name: "clean", lossRate: 0, meanBurst: 1),
        Network(name: "3 % random", lossRate: 0.03, meanBurst: 1),
        Network(name: "5 % random", lossRate: 0.05, meanBurst: 1),
        Network(name: "10 % random", lossRate: 0.10, meanBurst: 1),
        Network(name: "5 % bursty (mean 3)", lossRate: 0.05, meanBurst: 3),
    ]

    /// How a receiver fills a lost packet's span.
    enum Receiver: String, CaseIterable {
        case ours = "ours (waveform concealment)"
        case gstreamer = "GStreamer's receiver"
        case spandsp = "spandsp PLC"
        case silence = "silence"
    }

    /// rtpjitterbuffer's latency for the loss-only networks (every packet arrives 5 ms after it
    /// was sent): room for a replay on a loaded machine to send late without a packet being
    /// taken for lost; the delay itself is not scored here.
    static let gstreamerLatencyMs = 100

    func run() throws {
        let python = try self.python ?? PESQScorer.preparedPython()
        let directory = PESQScorer.repositoryRoot.appendingPathComponent("out/codec-quality")
        let scorer = try PESQScorer(python: python, directory: directory)
        let talkers = try [("alice", "speech/alice-en-us-48k.wav"), ("bob", "speech/bob-en-gb-48k.wav")].map {
            ($0.0, try WAVAudio(contentsOf: VectorFiles.url($0.1)).samples)
        }
        var pairs: [String: [Int]] = [:]
        var impairmentPairs: [String: [Int]] = [:]
        var replays: [(key: String, talker: String, reference: [Int16], lost: [Bool], replay: GStreamerReplay)] = []
        for codec in [AudioCodec.pcmu, .pcma, .g722] {
            let narrowband = codec != .g722
            for (talker, speech) in talkers {
                let reference = Array(speech.prefix(speech.count / Self.frame * Self.frame))
                let payloads = try Self.encode(reference, codec: codec)
                let anchor = try Self.gstreamerCoded(reference, codec: codec, directory: directory, name: talker)
                pairs["\(codec) GStreamer", default: []].append(try scorer.add(
                    referenceName: talker, reference: reference, degraded: anchor, name: "\(codec)-\(talker)-gstreamer", narrowband: narrowband))
                for network in Self.networks {
                    for seed in 0..<(network.lossRate == 0 ? 1 : seeds) {
                        let lost = Self.lossMask(count: payloads.count, network: network, seed: UInt64(seed + 1))
                        let name = "\(codec)-\(talker)-\(network.name)-\(seed)".replacingOccurrences(of: " ", with: "_")
                        if GStreamerReplay.gstLaunch != nil {
                            replays.append(("\(codec) \(network.name) \(Receiver.gstreamer.rawValue)", talker, reference, lost,
                                            Self.gstreamerReplay(payloads, lost: lost, codec: codec,
                                                                 output: directory.appendingPathComponent("gst-rx-\(name).wav"))))
                        }
                        for receiver in Receiver.allCases where receiver != .gstreamer && (receiver != .spandsp || narrowband) {
                            let played = try Self.play(payloads, lost: lost, codec: codec, receiver: receiver)
                            // Wide-band scores of ours on clean and random loss: the E-model's factors.
                            if receiver == .ours, network.meanBurst == 1 {
                                impairmentPairs["\(codec) \(network.lossRate)", default: []].append(narrowband ? try scorer.add(
                                    referenceName: talker, reference: reference, degraded: played,
                                    name: "\(codec)-\(talker)-\(network.name)-wideband-\(seed)") : -1)
                            }
                            pairs["\(codec) \(network.name) \(receiver.rawValue)", default: []].append(try scorer.add(
                                referenceName: talker, reference: reference, degraded: played,
                                name: "\(codec)-\(talker)-\(network.name)-\(receiver)-\(seed)", narrowband: narrowband))
                            if network.lossRate == 0 { break }  // nothing lost: every receiver plays the same
                        }
                    }
                }
            }
        }
        let replayStart = Date()
        for (job, result) in zip(replays, try GStreamerReplay.runAll(replays.map(\.replay), width: ListeningBenchmarks.gstreamerReplaysAtOnce)) {
            let played = Self.placedOnTimeline(result.pcm, lost: job.lost)
            pairs[job.key, default: []].append(try scorer.add(referenceName: job.talker, reference: job.reference, degraded: played,
                                                              name: job.replay.output.deletingPathExtension().lastPathComponent,
                                                              narrowband: !job.key.hasPrefix("\(AudioCodec.g722)")))
        }
        if !replays.isEmpty {
            print(String(format: "%d GStreamer receiver replays in %.0f s (real time)", replays.count, Date().timeIntervalSince(replayStart)))
        }
        let scores = try scorer.score()
        func mean(_ key: String) -> Double { QualityBenchmarks.mean((pairs[key] ?? []).compactMap { scores[$0] }) }
        print("\n== \(Self.group) (PESQ MOS-LQO: narrow-band P.862 for G.711, wide-band P.862.2 for G.722; Alice and Bob, "
              + "\(seeds) loss seeds each; played as a 48 kHz call plays them) ==")
        print(pad("codec", 6) + pad("network", 22) + Receiver.allCases.map { pad($0.rawValue, 30) }.joined() + "GStreamer's codec, clean")
        for codec in [AudioCodec.pcmu, .pcma, .g722] {
            for network in Self.networks {
                var line = pad("\(codec)", 6) + pad(network.name, 22)
                for receiver in Receiver.allCases {
                    let key = network.lossRate == 0 && receiver != .gstreamer ? "\(codec) clean \(Receiver.ours.rawValue)"
                        : "\(codec) \(network.name) \(receiver.rawValue)"
                    let value = receiver == .spandsp && codec == .g722 ? Double.nan : mean(key)
                    line += pad(value.isNaN ? "–" : String(format: "%.2f", value), 30)
                }
                if network.lossRate == 0 {
                    let ours = mean("\(codec) clean \(Receiver.ours.rawValue)"), anchor = mean("\(codec) GStreamer")
                    line += String(format: "%.2f (ours %+.2f)", anchor, ours - anchor)
                    report.add(BenchmarkFigure(group: Self.group, name: "\(codec) clean: PESQ", value: ours, unit: "MOS-LQO",
                                               baseline: "GStreamer's own codec", baselineValue: anchor, ratio: ours / anchor), quiet: true)
                } else {
                    let ours = mean("\(codec) \(network.name) \(Receiver.ours.rawValue)")
                    let baseline = codec == .g722 ? mean("\(codec) \(network.name) \(Receiver.silence.rawValue)")
                        : mean("\(codec) \(network.name) \(Receiver.spandsp.rawValue)")
                    report.add(BenchmarkFigure(group: Self.group, name: "\(codec) \(network.name): PESQ", value: ours, unit: "MOS-LQO",
                                               baseline: codec == .g722 ? "silence in the gaps" : "spandsp PLC",
                                               baselineValue: baseline, ratio: ours / baseline), quiet: true)
                    let gstreamer = mean("\(codec) \(network.name) \(Receiver.gstreamer.rawValue)")
                    if !gstreamer.isNaN {
                        report.add(BenchmarkFigure(group: Self.group, name: "\(codec) \(network.name): PESQ against GStreamer's receiver",
                                                   value: ours, unit: "MOS-LQO", baseline: "GStreamer's receiver, same packets",
                                                   baselineValue: gstreamer, ratio: ours / gstreamer), quiet: true)
                    }
                }
                print(line)
            }
        }
        // The E-model's factors for these codecs as played here, derived as CodecImpairment's
        // Opus factors are (ITU-T P.834.1 from PESQ-WB; Bpl,WB fitted to G.107.1 over random loss).
        print("\nE-model factors from PESQ-WB (P.834.1: MOS-LQO → R by G.107 Annex B, Ie,WB = 129 − 1.29 R; Bpl,WB fitted over random loss)")
        for codec in [AudioCodec.pcmu, .pcma, .g722] {
            func wideband(_ lossRate: Double) -> Double {
                if codec == .g722 {
                    let network = Self.networks.first { $0.lossRate == lossRate && $0.meanBurst == 1 }!
                    return mean(lossRate == 0 ? "\(codec) clean \(Receiver.ours.rawValue)" : "\(codec) \(network.name) \(Receiver.ours.rawValue)")
                }
                return QualityBenchmarks.mean((impairmentPairs["\(codec) \(lossRate)"] ?? []).compactMap { scores[$0] })
            }
            let impairment = 129 - 1.29 * Self.rating(mos: wideband(0))
            let points = Self.networks.filter { $0.lossRate > 0 && $0.meanBurst == 1 }.map {
                ($0.lossRate * 100, 129 - 1.29 * Self.rating(mos: wideband($0.lossRate)))
            }
            let (robustness, rms) = Self.fitRobustness(impairment: impairment, points: points)
            print(String(format: "%@: PESQ-WB clean %.2f, Ie,WB %.1f, Bpl,WB %.1f (rms %.1f over %@)", codec.encodingName, wideband(0),
                         impairment, robustness, rms, points.map { String(format: "%.0f %%: %.1f", $0.0, $0.1) }.joined(separator: ", ")))
        }
        print("WAVs and pairs.tsv in \(directory.path)")
    }

    /// R for a MOS on G.107 Annex B's curve (MOS = 1 + 0.035 R + R (R − 60)(100 − R) 7·10⁻⁶), by bisection.
    static func rating(mos: Double) -> Double {
        var low = 0.0, high = 100.0
        for _ in 0..<60 {
            let middle = (low + high) / 2
            let value = 1 + 0.035 * middle + middle * (middle - 60) * (100 - middle) * 7e-6
            if value < mos { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// Bpl,WB minimizing the squared error of G.107.1's Ie,eff = Ie + (129 − Ie) Ppl / (Ppl + Bpl)
    /// (random loss, BurstR 1) over `points` (loss %, measured Ie,eff), and the rms error.
    static func fitRobustness(impairment: Double, points: [(Double, Double)]) -> (Double, Double) {
        func error(_ robustness: Double) -> Double {
            points.map { loss, effective in
                let predicted = impairment + (129 - impairment) * loss / (loss + robustness)
                return (effective - predicted) * (effective - predicted)
            }.reduce(0, +)
        }
        let best = stride(from: 1.0, through: 99.9, by: 0.1).min { error($0) < error($1) } ?? 1
        return (best, (error(best) / Double(max(points.count, 1))).squareRoot())
    }

    private func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }

    /// The talker coded as a 48 kHz call's uplink codes it: one payload per 20 ms.
    static func encode(_ speech: [Int16], codec: AudioCodec) throws -> [[UInt8]] {
        let encoder = try codec.makeEncoder(sampleRate: callRate)
        var payload = [UInt8](repeating: 0, count: 1_500)
        return try stride(from: 0, to: speech.count, by: frame).map { start in
            let bytes = try speech[start..<(start + frame)].withUnsafeBufferPointer { pcm in
                try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) }
            }
            return Array(payload.prefix(bytes))
        }
    }

    /// What a receiver plays from `payloads` with those at `lost` missing.
    static func play(_ payloads: [[UInt8]], lost: [Bool], codec: AudioCodec, receiver: Receiver) throws -> [Int16] {
        let decoder: any AudioDecoder
        switch receiver {
        case .ours: decoder = try codec.makeDecoder(sampleRate: callRate)
        case .spandsp: decoder = try ResamplingDecoder(SpanDSPConcealingG711Decoder(law: codec == .pcmu ? .muLaw : .aLaw), sampleRate: callRate)
        case .silence: decoder = try ResamplingDecoder(SilenceConcealingDecoder(try codec.makeDecoder(sampleRate: codec.nativeSampleRate)),
                                                       sampleRate: callRate)
        case .gstreamer: throw BenchmarkError.setup("GStreamer's receiver is replayed over UDP (gstreamerReplay), not played here")
        }
        var played: [Int16] = []
        var pcm = [Int16](repeating: 0, count: frame)
        for (payload, isLost) in zip(payloads, lost) {
            _ = try pcm.withUnsafeMutableBufferPointer { pcm in
                isLost ? try decoder.conceal(into: pcm) : try payload.withUnsafeBytes { try decoder.decode($0, into: pcm) }
            }
            played += pcm
        }
        return played
    }

    /// GStreamer's receiver fed `payloads` over UDP on the codec's static payload type, one every
    /// 20 ms arriving 5 ms after it was sent, those at `lost` never sent.
    static func gstreamerReplay(_ payloads: [[UInt8]], lost: [Bool], codec: AudioCodec, output: URL) -> GStreamerReplay {
        let trace = NetworkTrace(packets: lost.enumerated().map { index, isLost in
            TracePacket(sequence: index, sendMs: Double(index) * 20, arrivalMs: isLost ? nil : Double(index) * 20 + 5)
        })
        let ticksPerFrame = codec.rtpClockRate / 50, payloadType = codec.staticPayloadType ?? 0
        return GStreamerReplay(trace: trace, packet: { sequence in
            OpusPacketStream.rtpPacket(sequenceNumber: UInt16(truncatingIfNeeded: sequence + 1_000),
                                       timestamp: UInt32(truncatingIfNeeded: sequence * ticksPerFrame + 4_321),
                                       payloadType: payloadType, payload: payloads[sequence])
        }, decoding: .fixedRate(codec), latencyMs: gstreamerLatencyMs, output: output)
    }

    /// GStreamer's output on the talk's timeline: its decoders put nothing in a lost packet's
    /// place, so the frames received follow one another in the file; each goes back to its
    /// packet's slot with silence in the holes, as a live sink plays them.
    static func placedOnTimeline(_ pcm: [Int16], lost: [Bool]) -> [Int16] {
        var timeline: [Int16] = [], next = 0
        timeline.reserveCapacity(lost.count * frame)
        for isLost in lost {
            let end = isLost ? next : min(next + frame, pcm.count)
            timeline += pcm[next..<end] + [Int16](repeating: 0, count: frame - (end - next))
            next = end
        }
        return timeline
    }

    /// A seeded Gilbert loss pattern (independent losses when the mean burst is 1).
    static func lossMask(count: Int, network: Network, seed: UInt64) -> [Bool] {
        guard network.lossRate > 0 else { return [Bool](repeating: false, count: count) }
        var generator = SeededGenerator(seed: seed &* 0x9E37_79B9)
        let leave = 1 / network.meanBurst
        let enter = network.lossRate * leave / (1 - network.lossRate)
        var isLosing = false
        return (0..<count).map { _ in
            isLosing = isLosing ? Double.random(in: 0..<1, using: &generator) >= leave : Double.random(in: 0..<1, using: &generator) < enter
            return isLosing
        }
    }

    /// The same audio through GStreamer's own encoder and decoder (its rate conversion both ways).
    static func gstreamerCoded(_ speech: [Int16], codec: AudioCodec, directory: URL, name: String) throws -> [Int16] {
        let input = directory.appendingPathComponent("gst-in-\(name).wav"), output = directory.appendingPathComponent("gst-\(codec)-\(name).wav")
        try WAVAudio(sampleRate: callRate, channelCount: 1, samples: speech).write(to: input)
        let chain = switch codec {
        case .pcmu: "mulawenc ! mulawdec"
        case .pcma: "alawenc ! alawdec"
        default: "avenc_g722 ! avdec_g722"
        }
        let pipeline = "filesrc location=\(input.path) ! wavparse ! audioconvert ! audioresample ! "
            + "audio/x-raw,format=S16LE,rate=\(codec.nativeSampleRate),channels=1 ! \(chain) ! audioconvert ! audioresample ! "
            + "audio/x-raw,format=S16LE,rate=\(callRate),channels=1 ! wavenc ! filesink location=\(output.path)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = ["-q"] + pipeline.split(separator: " ").map(String.init)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError.setup("gst-launch-1.0 \(chain) exited \(process.terminationStatus)") }
        return try WAVAudio(contentsOf: output).samples
    }
}

/// spandsp's G.711 PLC as a decoder: the conversion from `G711Law` (equal to spandsp's), the
/// concealment from `plc_rx`/`plc_fillin`.
final class SpanDSPConcealingG711Decoder: AudioDecoder {
    let law: G711Law
    private let plc: UnsafeMutablePointer<plc_state_t>

    init(law: G711Law) throws {
        self.law = law
        guard let plc = plc_init(nil) else { throw BenchmarkError.setup("plc_init") }
        self.plc = plc
    }

    deinit { plc_free(plc) }

    var codec: AudioCodec { law.codec }
    var sampleRate: Int { 8_000 }

    func packetInfo(_ payload: UnsafeRawBufferPointer) throws(AudioCodecError) -> AudioPacketInfo {
        AudioPacketInfo(sampleCount: payload.count, hasFEC: false)
    }

    func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        for index in 0..<payload.count { pcm[index] = law.decode(payload[index]) }
        _ = plc_rx(plc, pcm.baseAddress, Int32(payload.count))
        return payload.count
    }

    func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        Int(plc_fillin(plc, pcm.baseAddress, Int32(pcm.count)))
    }

    func reset() { _ = plc_init(plc) }
}

/// A decoder that plays silence for a lost packet (no concealment at all).
final class SilenceConcealingDecoder: AudioDecoder {
    let inner: any AudioDecoder
    init(_ inner: any AudioDecoder) { self.inner = inner }
    var codec: AudioCodec { inner.codec }
    var sampleRate: Int { inner.sampleRate }
    func packetInfo(_ payload: UnsafeRawBufferPointer) throws(AudioCodecError) -> AudioPacketInfo { try inner.packetInfo(payload) }
    func decode(_ payload: UnsafeRawBufferPointer, into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        try inner.decode(payload, into: pcm)
    }
    func conceal(into pcm: UnsafeMutableBufferPointer<Int16>) throws(AudioCodecError) -> Int {
        pcm.update(repeating: 0)
        return pcm.count
    }
    func reset() { inner.reset() }
}
