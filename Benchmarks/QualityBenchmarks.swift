// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import MediaEngineTesting
import NetworkSimulation
import TestSupport

/// `benchmarks quality`: what a listener hears, scored with PESQ-WB (ITU-T P.862.2, PyPI's
/// `pesq`) against what was said, for the engine's loss-adaptive FEC and the two static plans
/// other stacks ship, over a clean link and the G.1050 classes A–F plus bursty loss.
///
/// Each run is a two-way call (`SpeechCallRun`: two `CallMedia` endpoints with SRTP, the
/// adaptive jitter buffer and RTCP on the virtual clock, voice processing off): Alice says
/// her fixture to Bob while Bob says his to Alice, each direction over its own draw of the
/// network, each fixture twice. The second pass is the call in its steady state and is the
/// score; the first (the call starting: the jitter buffer learning, FEC not yet planned) is
/// shown beside it. A seed gives every FEC plan the same network, so the plans are compared
/// on the same losses. The anchor is libopus alone at the same bitrate and complexity
/// (`OpusAnchor`), scored the same way in the same run.
///
/// Needs Python with `pesq`: `scripts/pesq-venv` makes the environment with pip on first use
/// (or `--python PATH` names one), which is why `quality` is not in the default group list.
struct QualityBenchmarks {
    static let group = "quality"

    let report: Report
    /// Seeded network draws per network and plan (each scores both directions).
    var seeds = 4
    /// `--seed-offset`: other draws of the same networks.
    var seedOffset: UInt64 = 0
    /// `--python`: a Python with `pesq` and `numpy`; nil to make or reuse scripts/pesq-venv's.
    var python: String? = nil

    /// One network the calls run over.
    struct Network {
        var name: String
        /// nil: a clean link (no loss, no jitter, no delay).
        var profile: NetworkProfile?
        /// Whether it is one of the classes the issue's mean is taken over (not the clean link).
        var isClass: Bool
    }

    static let networks: [Network] = [Network(name: "clean", profile: nil, isClass: false)]
        + [NetworkProfile.classA, .classB, .classC, .classD, .classE, .classF].map { Network(name: $0.name, profile: $0, isClass: true) }
        + [Network(name: "C bursty", profile: NetworkProfile.classC.withBurstyLoss(), isClass: true)]

    /// Bitrate and complexity the call runs at (the engine's defaults), and the anchor with them.
    static let configuration = MediaConfiguration()
    /// The issue's targets. How far below libopus alone (the same bitrate, the same fixtures) the clean call may
    /// score: the listening issue's "within 0.03 of the codec alone". (It was an absolute 3.8,
    /// libopus's own score at 24 kb/s, until the default became 32 kb/s.)
    static let cleanShortfall = 0.03
    static let tolerance = 0.05
    /// How far the engine's own MOS over the scored pass may sit from PESQ-WB's.
    static let estimateTolerance = 0.3

    /// The engine's own E-model listening MOS (G.107.1 wideband, on PESQ-WB's scale) for what
    /// a receiver heard in the scored pass (`CallMediaStatistics.quality(since:)`: that pass's
    /// counters alone, as PESQ scores that pass alone), compared with PESQ's MOS-LQO.
    static func engineMOS(_ window: SpeechCallRun.Window) -> Double? { window.quality?.listeningMeanOpinionScore }

    /// What one network and plan gave, over every seed and both directions.
    struct Cell {
        var steadyPairs: [Int] = []
        var firstPassPairs: [Int] = []
        var steady: [WindowStatistics] = []
        var engineMOS: [Double] = []
        /// What the estimate took as the share of audio missed (Ppl, %) and its burst ratio.
        var engineLoss: [Double] = []
        var engineBurstRatio: [Double] = []
    }

    func run() throws {
        let started = Date()
        let python = try self.python ?? PESQScorer.preparedPython()
        let directory = PESQScorer.repositoryRoot.appendingPathComponent("out/quality", isDirectory: true)
        let scorer = try PESQScorer(python: python, directory: directory)
        let alice = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let bob = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: 48_000)
        let fixtures = [("alice", alice), ("bob", bob)]
        let configuration = Self.configuration

        // The anchor: each fixture as one pass (the fixture, then the gap's silence) through
        // libopus alone, so its window has the calls' length and shape.
        let passSamples = SpeechCallRun.passFrames(speechSamples: max(alice.count, bob.count), configuration: configuration)
            * configuration.samplesPerFrame
        var anchorPairs: [Int] = []
        for (name, speech) in fixtures {
            let pass = speech + [Int16](repeating: 0, count: passSamples - speech.count)
            anchorPairs.append(try scorer.add(referenceName: name, reference: speech, degraded: try OpusAnchor.decoded(
                pass, bitrate: configuration.bitrate, complexity: configuration.complexity), name: "anchor-\(name)"))
        }

        var cells: [String: Cell] = [:]
        for network in Self.networks {
            for plan in FECPlan.allCases {
                var cell = Cell()
                for seed in 0..<UInt64(seeds) {
                    let drawn = seed + seedOffset
                    let call = try SpeechCallRun(alice: alice, bob: bob, configuration: plan.configuration(configuration),
                                                 network: network.profile, seed: 1_000 + drawn)
                    for (direction, (name, _)) in zip(call.directions, fixtures) {
                        let label = "\(network.name)-\(plan.rawValue)-seed\(drawn)-\(name)"
                        cell.steadyPairs.append(try scorer.add(referenceName: name, reference: direction.speech,
                                                               degraded: direction.scored.received, name: label))
                        cell.firstPassPairs.append(try scorer.add(referenceName: name, reference: direction.speech,
                                                                  degraded: direction.warmUp.received, name: label + "-first"))
                        cell.steady.append(direction.scored.statistics)
                        if let mos = Self.engineMOS(direction.scored) { cell.engineMOS.append(mos) }
                        if let quality = direction.scored.quality {
                            cell.engineLoss.append(quality.effectiveLossPercent)
                            cell.engineBurstRatio.append(quality.burstRatio)
                        }
                    }
                }
                cells[Self.key(network, plan)] = cell
            }
        }
        let simulated = Date()
        let scores = try scorer.score()
        let anchor = Self.mean(anchorPairs.compactMap { scores[$0] })
        printTable(cells: cells, scores: scores, anchor: anchor)
        // Talkers differ by more than the targets' margins: the clean rows per talker.
        let cleanPairs = cells[Self.key(Self.networks[0], .adaptive)]?.steadyPairs ?? []
        print("per talker: " + fixtures.indices.map { talker in
            // Pairs alternate Alice, Bob within each seed.
            let clean = stride(from: talker, to: cleanPairs.count, by: fixtures.count).compactMap { scores[cleanPairs[$0]] }
            return String(format: "%@ anchor %.2f, clean adaptive %.2f", fixtures[talker].0,
                          scores[anchorPairs[talker]] ?? .nan, Self.mean(clean))
        }.joined(separator: "; "))
        let passed = checkTargets(cells: cells, scores: scores, anchor: anchor)
        print(String(format: "%d of %d targets met; %d calls of 2 × %.1f s simulated in %.0f s, %d pairs scored in %.0f s; WAVs in %@",
                     passed.met, passed.total, Self.networks.count * FECPlan.allCases.count * seeds,
                     Double(2 * passSamples) / 48_000, simulated.timeIntervalSince(started), scores.count,
                     Date().timeIntervalSince(simulated), directory.path))
    }

    // MARK: The table

    private func printTable(cells: [String: Cell], scores: [Double?], anchor: Double) {
        let configuration = Self.configuration
        print("\n== \(Self.group) (PESQ-WB MOS-LQO, ITU-T P.862.2; anchor: libopus direct, \(configuration.bitrate / 1_000) kb/s, "
              + "complexity \(configuration.complexity), no FEC, no network) ==")
        print("\(seeds) seeds × 2 talkers per row; steady = the fixture's second pass (scored), first pass = the call starting up;")
        print("loss, FEC (received packets carrying FEC), rebuilt (packets played from FEC), concealed, stretched (samples added or")
        print("removed by time-stretching), plan (the sender's planned loss at the pass's start → end, each distinct pair) and")
        print("jb (mean jitter-buffer delay) are the receivers' counters over the steady pass")
        print(Self.row("network", "plan", "PESQ steady (min–max)", "first pass", "loss %", "FEC %", "rebuilt", "concealed %", "stretched %",
                       "plan %", "jb ms", "E-model MOS", "Ppl %", "BurstR"))
        print(Self.row("—", "libopus direct", String(format: "%.2f", anchor), "", "", "", "", "", "", "", "", ""))
        report.add(BenchmarkFigure(group: Self.group, name: "anchor: libopus direct PESQ-WB", value: anchor, unit: "MOS-LQO",
                                   baseline: nil, baselineValue: nil, ratio: nil), quiet: true)
        for network in Self.networks {
            for plan in FECPlan.allCases {
                guard let cell = cells[Self.key(network, plan)] else { continue }
                let steady = cell.steadyPairs.compactMap { scores[$0] }
                let first = cell.firstPassPairs.compactMap { scores[$0] }
                let windows = cell.steady
                // A window's RFC 3550 count can be negative (late arrivals): none lost there.
                let lost = windows.reduce(0) { $0 + max(0, $1.packetsLost) }
                let received = windows.reduce(0) { $0 + $1.packetsReceived }
                let fec = windows.reduce(0) { $0 + $1.fecPacketsReceived }
                let rebuilt = windows.reduce(0) { $0 + $1.fecPacketsRecovered }
                let concealed = windows.reduce(0) { $0 + $1.concealedSamples }
                let stretched = windows.reduce(0) { $0 + $1.insertedSamplesForDeceleration + $1.removedSamplesForAcceleration }
                let played = windows.reduce(0) { $0 + $1.totalSamplesReceived }
                let lossPercent = Self.percent(lost, of: lost + received)
                let fecPercent = Self.percent(fec, of: received)
                let concealedPercent = Self.percent(concealed, of: played)
                let stretchedPercent = Self.percent(stretched, of: played)
                let delay = Self.mean(windows.map(\.meanJitterBufferDelayMs))
                // The distinct plans, the most frequent first; three at most, so the table stays aligned.
                let planCounts = Dictionary(windows.map { ("\($0.plannedLossPercentAtStart)→\($0.plannedLossPercentAtEnd)", 1) }, uniquingKeysWith: +)
                let ranked = planCounts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
                let plans = ranked.count > 3 ? Array(ranked.prefix(3)) + ["…"] : ranked
                let mos = cell.engineMOS.isEmpty ? nil : Self.mean(cell.engineMOS)
                print(Self.row(network.name, plan.label,
                               String(format: "%.2f (%.2f–%.2f)", Self.mean(steady), steady.min() ?? .nan, steady.max() ?? .nan),
                               String(format: "%.2f", Self.mean(first)), String(format: "%.2f", lossPercent),
                               String(format: "%.1f", fecPercent), "\(rebuilt)", String(format: "%.2f", concealedPercent),
                               String(format: "%.2f", stretchedPercent), plans.joined(separator: " "), String(format: "%.0f", delay),
                               mos.map { String(format: "%.2f", $0) } ?? "n/a",
                               cell.engineLoss.isEmpty ? "n/a" : String(format: "%.2f", Self.mean(cell.engineLoss)),
                               cell.engineBurstRatio.isEmpty ? "n/a" : String(format: "%.2f", Self.mean(cell.engineBurstRatio))))
                let name = "\(network.name) \(plan.label)"
                let baseline = "libopus direct \(configuration.bitrate / 1_000) kb/s c\(configuration.complexity)"
                let mean = Self.mean(steady)
                report.add(BenchmarkFigure(group: Self.group, name: name + ": PESQ-WB", value: mean, unit: "MOS-LQO",
                                           baseline: baseline, baselineValue: anchor, ratio: mean / anchor), quiet: true)
                report.add(BenchmarkFigure(group: Self.group, name: name + ": PESQ-WB first pass", value: Self.mean(first), unit: "MOS-LQO",
                                           baseline: baseline, baselineValue: anchor, ratio: Self.mean(first) / anchor), quiet: true)
                for (figure, value, unit) in [("loss", lossPercent, "%"), ("FEC", fecPercent, "%"), ("concealed", concealedPercent, "%"),
                                              ("stretched", stretchedPercent, "%"), ("jitter buffer delay", delay, "ms")] {
                    report.add(BenchmarkFigure(group: Self.group, name: "\(name): \(figure)", value: value, unit: unit,
                                               baseline: nil, baselineValue: nil, ratio: nil), quiet: true)
                }
                if let mos {
                    report.add(BenchmarkFigure(group: Self.group, name: name + ": E-model MOS", value: mos, unit: "MOS",
                                               baseline: "PESQ-WB", baselineValue: mean, ratio: mos / mean), quiet: true)
                }
            }
        }
    }

    // MARK: The targets

    /// Prints a PASS/FAIL line per target; returns how many were met of how many checked.
    private func checkTargets(cells: [String: Cell], scores: [Double?], anchor: Double) -> (met: Int, total: Int) {
        var met = 0
        var total = 0
        func check(_ passed: Bool, _ text: String, figure: String) {
            total += 1
            if passed { met += 1 }
            print((passed ? "PASS " : "FAIL ") + text)
            report.add(BenchmarkFigure(group: Self.group, name: "target: " + figure, value: passed ? 1 : 0, unit: "pass",
                                       baseline: nil, baselineValue: nil, ratio: nil), quiet: true)
        }
        func steady(_ network: Network, _ plan: FECPlan) -> [Double?] {
            (cells[Self.key(network, plan)]?.steadyPairs ?? []).map { scores[$0] }
        }
        print("")
        let clean = Self.networks[0]
        let cleanScore = Self.mean(steady(clean, .adaptive).compactMap { $0 })
        check(cleanScore >= anchor - Self.cleanShortfall,
              String(format: "clean network, adaptive (the defaults) at %d kb/s: %.2f ≥ libopus alone %.2f − %.2f",
                     Self.configuration.bitrate / 1_000, cleanScore, anchor, Self.cleanShortfall),
              figure: "clean network ≥ libopus alone − 0.03")
        var means: [FECPlan: [Double]] = [:]
        for network in Self.networks {
            let adaptive = steady(network, .adaptive)
            let (betterPlan, better) = [FECPlan.staticTenPercent, .none].map { ($0, steady(network, $0)) }
                .max { Self.mean($0.1.compactMap { $0 }) < Self.mean($1.1.compactMap { $0 }) }!
            // Paired by seed and talker: the same network for both, so the spread of the
            // differences says how far the gap is from noise.
            let differences = zip(adaptive, better).compactMap { pair -> Double? in
                guard let ours = pair.0, let theirs = pair.1 else { return nil }
                return ours - theirs
            }
            let gap = Self.mean(differences)
            check(gap >= -Self.tolerance,
                  String(format: "%@: adaptive %.2f vs the better static plan (%@) %.2f: %+.3f (± %.3f standard error over %d pairs), "
                         + "tolerance −%.2f", network.name, Self.mean(adaptive.compactMap { $0 }), betterPlan.label,
                         Self.mean(better.compactMap { $0 }), gap, Self.standardError(differences), differences.count, Self.tolerance),
                  figure: "\(network.name) adaptive within \(Self.tolerance) of the better static plan")
            guard network.isClass else { continue }
            for plan in FECPlan.allCases { means[plan, default: []].append(Self.mean(steady(network, plan).compactMap { $0 })) }
        }
        let classes = Self.networks.filter(\.isClass).map(\.name).joined(separator: ", ")
        let adaptiveMean = Self.mean(means[.adaptive] ?? [])
        for plan in [FECPlan.staticTenPercent, .none] {
            let other = Self.mean(means[plan] ?? [])
            check(adaptiveMean > other, String(format: "mean over classes %@: adaptive %.3f > %@ %.3f", classes, adaptiveMean, plan.label, other),
                  figure: "mean over classes: adaptive above \(plan.label)")
        }
        let hasEngineMOS = cells.values.contains { !$0.engineMOS.isEmpty }
        if hasEngineMOS {
            for network in Self.networks {
                guard let cell = cells[Self.key(network, .adaptive)], !cell.engineMOS.isEmpty else { continue }
                let pesq = Self.mean(cell.steadyPairs.compactMap { scores[$0] })
                let mos = Self.mean(cell.engineMOS)
                check(abs(mos - pesq) <= Self.estimateTolerance,
                      String(format: "%@: engine's E-model MOS %.2f within ±%.1f of PESQ-WB %.2f", network.name, mos, Self.estimateTolerance, pesq),
                      figure: "\(network.name) E-model MOS within \(Self.estimateTolerance) of PESQ-WB")
            }
        } else {
            print("not checked: the engine's E-model MOS within ±\(Self.estimateTolerance) of PESQ-WB (CallMediaStatistics reports no MOS yet: "
                  + "QualityBenchmarks.engineMOS)")
        }
        return (met, total)
    }

    // MARK: Helpers

    private static func key(_ network: Network, _ plan: FECPlan) -> String { network.name + "/" + plan.rawValue }

    static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count)
    }

    static func standardError(_ values: [Double]) -> Double {
        guard values.count > 1 else { return .nan }
        let average = mean(values)
        let variance = values.reduce(0) { $0 + ($1 - average) * ($1 - average) } / Double(values.count - 1)
        return (variance / Double(values.count)).squareRoot()
    }

    private static func percent(_ part: Int, of whole: Int) -> Double {
        whole > 0 ? 100 * Double(part) / Double(whole) : 0
    }

    private static func row(_ columns: String...) -> String {
        let widths = [10, 17, 24, 11, 8, 7, 8, 12, 12, 14, 7, 12, 7, 7]
        return zip(columns, widths).map { text, width in
            text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
        }.joined()
    }
}
