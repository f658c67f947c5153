// SPDX-License-Identifier: Apache-2.0
import CBaseline
import Foundation
import MediaEngineTesting
import NetworkSimulation
import TestSupport

/// `benchmarks soak [--minutes N]`: a long call on the virtual clock (`SoakRun`), 4 hours by
/// default — class E impairment, ±500 ppm of clock drift between the two sides, two
/// 10-second outages, the RTP sequence numbers (and SRTP's rollover counter) wrapping every
/// 21.8 minutes. Baselines: the heap after a 5-minute warm-up against its largest value
/// later; the jitter buffer's bounds against the largest delays it reached; the packets sent
/// in the last minute against those received. Runs only when named (it takes minutes).
struct SoakBenchmarks {
    static let group = "soak"
    let report: Report
    var minutes: Double

    func run() throws {
        report.beginGroup(Self.group, baseline: "the heap after warm-up; the buffer's configured bounds; packets sent")
        let speech = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let outages = [(startMinute: minutes * 0.3, seconds: 10.0), (startMinute: minutes * 0.7, seconds: 10.0)]
        let soak = SoakRun(minutes: minutes, profile: .classE, driftPpm: 500, outages: outages, seed: 11)
        let warmUpMinute = min(5, Int(minutes) / 2)
        var heapAfterWarmUp = 0, largestHeap = 0
        let started = Date()
        let result = try soak.run(speech: speech) { minute, _ in
            let heap = Int(cbase_heap_bytes_in_use())
            if minute == warmUpMinute { heapAfterWarmUp = heap }
            if minute >= warmUpMinute { largestHeap = max(largestHeap, heap) }
            if minute % 30 == 0 { print("  soak: minute \(minute), heap \(heap / 1_024) KiB, \(Int(Date().timeIntervalSince(started))) s") }
        }
        let bounds = soak.configuration.jitterBuffer
        func add(_ name: String, _ value: Double, _ unit: String, baseline: String, _ baselineValue: Double?) {
            report.add(BenchmarkFigure(group: Self.group, name: name, value: value, unit: unit, baseline: baseline,
                                       baselineValue: baselineValue, ratio: baselineValue.map { $0 > 0 ? value / $0 : 0 }))
        }
        add("\(Int(minutes)) min: heap growth after warm-up", Double(largestHeap - heapAfterWarmUp) / 1_024, "KiB",
            baseline: "heap after warm-up", Double(heapAfterWarmUp) / 1_024)
        add("largest target delay, +500 ppm way", result.largestTargetDelayMs.aliceToBob, "ms",
            baseline: "maximum delay", Double(bounds.maximumDelayMs))
        add("largest target delay, −500 ppm way", result.largestTargetDelayMs.bobToAlice, "ms",
            baseline: "maximum delay", Double(bounds.maximumDelayMs))
        add("largest minute's buffer delay, +500 ppm", result.largestMinuteBufferDelayMs.aliceToBob, "ms",
            baseline: "maximum delay", Double(bounds.maximumDelayMs))
        add("largest minute's buffer delay, −500 ppm", result.largestMinuteBufferDelayMs.bobToAlice, "ms",
            baseline: "maximum delay", Double(bounds.maximumDelayMs))
        add("sequence wraps (SRTP rollovers)", Double(result.sequenceWraps), "wraps", baseline: "none", nil)
        add("SRTP failures (auth + replay)", Double(result.authenticationFailures + result.replays), "packets", baseline: "none", nil)
        add("packets received in the last minute", Double(result.lastMinuteReceived), "packets",
            baseline: "sent in it", Double(result.lastMinuteSent))
        add("wall time", Date().timeIntervalSince(started), "s", baseline: "simulated", minutes * 60)
    }
}
