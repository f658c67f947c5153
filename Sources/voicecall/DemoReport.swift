// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine

/// One direction's totals at the end of the call: the summary table's column and the JSON's.
struct DemoDirectionReport: Codable, Equatable {
    /// Who talked.
    var from: String
    /// Who listened.
    var to: String
    /// RTP packets the sender sent.
    var packetsSent: Int
    /// RTP packets the receiver took in.
    var packetsReceived: Int
    /// Packets lost (RFC 3550: expected minus received).
    var packetsLost: Int
    /// Datagrams the simulated network dropped (RTP and RTCP), 0 on a clean loopback.
    var networkDropped: Int
    /// Lost packets rebuilt from Opus in-band FEC.
    var fecRecovered: Int
    /// Packets the jitter buffer dropped as too late.
    var packetsDiscarded: Int
    /// Share of played audio that was concealment, %.
    var concealedPercent: Double
    /// Share of played audio that the jitter buffer time-scaled (samples it inserted or
    /// removed to follow its target), %.
    var timeScaledPercent: Double
    /// Interarrival jitter at the end, ms.
    var jitterMs: Double
    /// Mean time received audio waited in the jitter buffer, ms.
    var bufferDelayMs: Double
    /// Mean one-way network delay the simulator gave, ms (nil: clean loopback).
    var networkDelayMs: Double?
    /// SRTP bitrate on the wire (RTP header, payload, tag), kb/s.
    var bitrateKbps: Double
    /// The receiver's conversational MOS estimate (G.107.1, 1–4.5), nil if it had none.
    var mos: Double?
    /// The receiver's listening MOS estimate (delay excluded).
    var listeningMos: Double?
    /// What the estimate counted as missed audio, % (G.107's Ppl: concealment over speech, or
    /// packets lost or too late less those rebuilt from FEC if more).
    var estimatedMissedPercent: Double?
    /// The codec impairment the estimate used: Ie,WB and Bpl,WB (Opus at the far end's
    /// bitrate and FEC plan).
    var estimatedCodecImpairment: Double?
    var estimatedLossRobustness: Double?
    /// Echo suppression at the sender's microphone (ERLE) at the end, dB, nil before the far
    /// end talked. The meter has a 1 s memory and counts near-end speech over far-end speech
    /// (double talk) too, so it reads low while both talk.
    var echoSuppressionDb: Double?
    /// The highest echo suppression sampled during the call (single talk, once converged), dB.
    var echoSuppressionPeakDb: Double?
    /// SRTP authentication failures plus replays at the receiver (0 on a working call).
    var srtpFailures: Int
    /// The samples taken while the call ran.
    var samples: [DemoSample]

    init(from: String, to: String, sender: CallMediaStatistics, receiver: CallMediaStatistics, senderSource: MediaSourceStatistics,
         callSeconds: Double, path: SimulatedNetworkPath?, samples: [DemoSample]) {
        let inbound = receiver.inbound
        self.from = from
        self.to = to
        packetsSent = sender.outbound.packetsSent
        packetsReceived = inbound.packetsReceived
        packetsLost = inbound.packetsLost
        networkDropped = path?.dropped ?? 0
        fecRecovered = inbound.fecPacketsRecovered
        packetsDiscarded = inbound.packetsDiscarded
        concealedPercent = inbound.totalSamplesReceived > 0 ? Double(inbound.concealedSamples) / Double(inbound.totalSamplesReceived) * 100 : 0
        timeScaledPercent = inbound.totalSamplesReceived > 0
            ? Double(inbound.insertedSamplesForDeceleration + inbound.removedSamplesForAcceleration) / Double(inbound.totalSamplesReceived) * 100 : 0
        jitterMs = inbound.jitter * 1_000
        bufferDelayMs = inbound.jitterBufferEmittedCount > 0 ? inbound.jitterBufferDelay / Double(inbound.jitterBufferEmittedCount) * 1_000 : 0
        if let path, !path.isClean, !path.appliedDelays.isEmpty {
            networkDelayMs = path.appliedDelays.reduce(0) { $0 + $1.delayMs } / Double(path.appliedDelays.count)
        }
        bitrateKbps = callSeconds > 0 ? Double(sender.transport.bytesSent) * 8 / callSeconds / 1_000 : 0
        mos = receiver.quality?.meanOpinionScore
        listeningMos = receiver.quality?.listeningMeanOpinionScore
        estimatedMissedPercent = receiver.quality?.effectiveLossPercent
        estimatedCodecImpairment = receiver.quality?.codecImpairment.equipmentImpairment
        estimatedLossRobustness = receiver.quality?.codecImpairment.packetLossRobustness
        echoSuppressionDb = senderSource.echoReturnLossEnhancement
        echoSuppressionPeakDb = samples.compactMap(\.echoSuppressionDb).max()
        srtpFailures = receiver.transport.srtp.authFailures + receiver.transport.srtp.replays
        self.samples = samples
    }
}

/// Everything the demo measured: what `--json` writes.
struct DemoReport: Codable, Equatable {
    /// The network: "C+bursty", "none".
    var network: String
    /// Seed of the network traces.
    var seed: UInt64
    /// Whether it ran on the virtual clock.
    var fast: Bool
    /// Call time, s.
    var callSeconds: Double
    /// Wall-clock time the media took, s.
    var elapsedSeconds: Double
    /// SRTP suite, Opus bitrate and frame.
    var srtp: String, bitrate: Int, ptimeMs: Int, dtx: Bool
    /// The call flow as it happened, in order.
    var flow: [String]
    /// Alice to Bob, then Bob to Alice.
    var directions: [DemoDirectionReport]

    /// The summary table: one row per figure, one column per direction.
    var table: String {
        func number(_ value: Double?, _ format: String) -> String { value.map { String(format: format, $0) } ?? "—" }
        let rows: [(String, (DemoDirectionReport) -> String)] = [
            ("packets sent", { "\($0.packetsSent)" }),
            ("packets received", { "\($0.packetsReceived)" }),
            ("packets lost", { "\($0.packetsLost)" }),
            ("dropped by the network", { "\($0.networkDropped)" }),
            ("recovered from FEC", { "\($0.fecRecovered)" }),
            ("too late, discarded", { "\($0.packetsDiscarded)" }),
            ("concealed audio", { number($0.concealedPercent, "%.1f %%") }),
            ("time-scaled audio", { number($0.timeScaledPercent, "%.1f %%") }),
            ("network delay (mean)", { number($0.networkDelayMs, "%.0f ms") }),
            ("jitter", { number($0.jitterMs, "%.1f ms") }),
            ("jitter buffer delay", { number($0.bufferDelayMs, "%.0f ms") }),
            ("bitrate (SRTP)", { number($0.bitrateKbps, "%.1f kb/s") }),
            ("MOS, conversational", { number($0.mos, "%.2f") }),
            ("MOS, listening", { number($0.listeningMos, "%.2f") }),
            ("echo suppression, peak", { number($0.echoSuppressionPeakDb, "%.0f dB") }),
            ("echo suppression, end", { number($0.echoSuppressionDb, "%.0f dB") }),
            ("SRTP failures", { "\($0.srtpFailures)" }),
        ]
        let header = directions.map { "\($0.from) → \($0.to)" }
        func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
            let gap = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + gap : gap + text
        }
        var lines = ["  " + pad("", 24, left: true) + header.map { pad($0, 14) }.joined()]
        for (name, value) in rows {
            lines.append("  " + pad(name, 24, left: true) + directions.map { pad(value($0), 14) }.joined())
        }
        return lines.joined(separator: "\n")
    }

    /// The report as JSON (sorted keys, indented), written to `path`.
    func write(to path: String) throws(DemoOutputError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        do {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try encoder.encode(self).write(to: url)
        } catch {
            throw .write(path, "\(error)")
        }
    }
}

/// Why a result file could not be written.
enum DemoOutputError: Error, CustomStringConvertible {
    /// Writing `path` failed.
    case write(String, String)

    var description: String {
        switch self {
        case let .write(path, detail): return "cannot write \(path): \(detail)"
        }
    }
}
