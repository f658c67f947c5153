// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import CSpeexDSP
import EchoEvaluation
import TestSupport

/// Echo cancellation: quality (ERLE, convergence, double talk) of speexdsp alone with the
/// unaligned reference (and its own residual echo suppressor) against ours — speexdsp with our
/// delay alignment, followed by speexdsp's residual echo suppressor ("speex RES") or by our
/// `ResidualEchoSuppressor` ("our RES") — on seeded synthetic rooms; and cost per 10 ms frame
/// against the raw speexdsp calls in the same run, with our own stages as rows of their own.
struct AECBenchmarks {
    static let group = "aec"
    static let rate = 16_000

    /// Our canceller's residual suppressor variants, each reported against speexdsp alone: ours
    /// also on 5 ms hops (`residualHopMs`), 5 ms less latency.
    static let variants: [(name: String, configuration: EchoCanceller.Configuration)] = [
        ("speex RES", .init(sampleRate: rate, residualSuppression: .speexdsp)), ("our RES", .init(sampleRate: rate)),
        ("our RES, 5 ms hop", .init(sampleRate: rate, residualHopMs: 5)),
    ]
    /// The suppressors compared over several seeds (at their defaults).
    static let seededSuppressions: [EchoCanceller.ResidualSuppression] = [.speexdsp, .ours]

    let comparison: Comparison
    let report: Report

    func run() throws {
        report.beginGroup(Self.group, baseline: "speexdsp alone, unaligned reference / raw speexdsp calls")
        let far = try SpeechFixture.samples(SpeechFixture.alice)
        for room in EchoRoom.standard {
            let label = room.description
            guard comparison.includes("ERLE " + label) else { continue }
            let path = room.path(sampleRate: Self.rate)
            let microphone = path.echo(of: far)
            let alone = try Self.cancel(.init(sampleRate: Self.rate, residualSuppression: .speexdsp, delayEstimation: false),
                                        microphone: microphone, far: far)
            let never = Double(microphone.count) / Double(Self.rate)
            let erleAlone = Self.erle(microphone: microphone, residual: alone)
            let convergenceAlone = Self.convergence(microphone: microphone, residual: alone)
            for (variant, configuration) in Self.variants {
                let ours = try Self.cancel(configuration, microphone: microphone, far: far)
                let erleOurs = Self.erle(microphone: microphone, residual: ours)
                report.add(BenchmarkFigure(group: Self.group, name: "ERLE \(label), \(variant)", value: erleOurs, unit: "dB",
                                           baseline: "speexdsp alone", baselineValue: erleAlone, ratio: nil))
                let convergenceOurs = Self.convergence(microphone: microphone, residual: ours)
                report.add(BenchmarkFigure(group: Self.group, name: "convergence 20 dB \(label), \(variant)", value: convergenceOurs,
                                           unit: "s", baseline: "speexdsp alone (\(never) s: never)", baselineValue: convergenceAlone,
                                           ratio: nil))
            }
        }
        if comparison.includes("double talk") { try doubleTalk(far: far) }
        if comparison.includes("noise floor") { try noiseFloor(far: far) }
        if comparison.includes("seeds") { try seedRobustness(far: far) }
        for rate in [16_000, 48_000] where comparison.includes("cost \(rate / 1_000) kHz") {
            try cost(rate: rate)
        }
    }

    /// A new canceller built with `configuration`, run over the whole recording.
    static func cancel(_ configuration: EchoCanceller.Configuration, microphone: [Int16], far: [Int16]) throws -> [Int16] {
        try EchoCanceller(configuration: configuration).processRecording(microphone: microphone, farEnd: far)
    }

    /// Convergence time, with the signal's length standing for "never".
    static func convergence(microphone: [Int16], residual: [Int16]) -> Double {
        EchoMeasurement.convergenceSeconds(microphone: microphone, residual: residual, sampleRate: rate)
            ?? Double(microphone.count) / Double(rate)
    }

    /// ERLE from `EchoMeasurement.steadyStateStartSeconds` (4 s) on.
    static func erle(microphone: [Int16], residual: [Int16]) -> Double {
        EchoMeasurement.steadyStateERLE(microphone: microphone, residual: residual, sampleRate: rate) ?? -.infinity
    }

    /// Near-end preservation: far end throughout at 120 ms / −6 dB, near end from 4 s, as
    /// recorded (about 3 dB above the echo) and 10 dB quieter (a distant or soft talker, where
    /// a suppressor that mistakes the near end for echo shows); the correlation of the output
    /// with the clean near end (best lag) against the raw microphone's.
    private func doubleTalk(far: [Int16]) throws {
        let near = try SpeechFixture.samples(SpeechFixture.bob)
        let start = 4 * Self.rate
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, seed: 3)
        let echo = path.echo(of: far)
        for (suffix, scale) in [("", Float(1)), (" (near −10 dB)", Float(0.316))] {
            let cleanNear = [Int16](repeating: 0, count: start) + near.prefix(far.count - start).map { Int16(Float($0) * scale) }
            let microphone = zip(echo, cleanNear).map { Int16(clamping: Int($0) + Int($1)) }
            let alone = try Self.cancel(.init(sampleRate: Self.rate, residualSuppression: .speexdsp, delayEstimation: false),
                                        microphone: microphone, far: far)
            let clean = Array(cleanNear[start...])
            let aloneCorrelation = SignalComparison.bestCorrelation(reference: clean, signal: Array(alone[start...]), maxLag: 200).correlation
            let rawCorrelation = SignalComparison.bestCorrelation(reference: clean, signal: Array(microphone[start...]), maxLag: 200).correlation
            for (variant, configuration) in Self.variants {
                let ours = try Self.cancel(configuration, microphone: microphone, far: far)
                let oursCorrelation = SignalComparison.bestCorrelation(reference: clean, signal: Array(ours[start...]), maxLag: 200).correlation
                report.add(BenchmarkFigure(group: Self.group, name: "double talk near-end corr\(suffix), \(variant)", value: oursCorrelation,
                                           unit: "corr", baseline: "speexdsp alone", baselineValue: aloneCorrelation, ratio: nil))
            }
            report.add(BenchmarkFigure(group: Self.group, name: "double talk raw mic corr\(suffix)", value: rawCorrelation, unit: "corr",
                                       baseline: nil, baselineValue: nil, ratio: nil))
        }
    }

    /// Comfort noise: near-end background noise (white, −45 dBFS) under the echo of the far end
    /// (120 ms / −6 dB); the output's level in the frames where the echo is at least 10 dB above
    /// the noise (after 2 s), minus its level with the far end silent: 0 dB means the near end's
    /// noise floor is kept while the far end talks, a large negative figure that it is gated
    /// with the echo (the listener hears it pump). Ours with comfort noise against ours without;
    /// speex RES (whose denoiser also lowers the far-silent level) for reference.
    private func noiseFloor(far: [Int16]) throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, seed: 3)
        let echo = path.echo(of: far)
        let noise = SyntheticNoise.samples(count: far.count, levelDb: -45, pink: false, seed: 7)
        let microphone = zip(echo, noise).map { Int16(clamping: Int($0) + Int($1)) }
        let frameCount = 160
        func frame(_ samples: [Int16], _ index: Int) -> ArraySlice<Int16> { samples[(index * frameCount)..<((index + 1) * frameCount)] }
        let frames = far.count / frameCount
        let noiseLevel = SignalComparison.rmsDecibels(noise)
        // Output frames one late: the suppressors' one frame of latency.
        let echoFrames = (200..<(frames - 1)).filter { SignalComparison.rmsDecibels(frame(echo, $0)) > noiseLevel + 10 }.map { $0 + 1 }
        let silent = [Int16](repeating: 0, count: far.count)
        func difference(_ configuration: EchoCanceller.Configuration) throws -> Double {
            let quiet = try Self.cancel(configuration, microphone: noise, far: silent)
            let output = try Self.cancel(configuration, microphone: microphone, far: far)
            let during = SignalComparison.rmsDecibels(echoFrames.flatMap { frame(output, $0) })
            return during - SignalComparison.rmsDecibels(quiet[(frameCount * 100)...])
        }
        let with = try difference(.init(sampleRate: Self.rate))
        let without = try difference(.init(sampleRate: Self.rate, comfortNoise: false))
        let speex = try difference(.init(sampleRate: Self.rate, residualSuppression: .speexdsp))
        report.add(BenchmarkFigure(group: Self.group, name: "noise floor kept during far-end talk, our RES with comfort noise",
                                   value: with, unit: "dB", baseline: "our RES without comfort noise", baselineValue: without, ratio: nil))
        report.add(BenchmarkFigure(group: Self.group, name: "noise floor kept during far-end talk, speex RES", value: speex, unit: "dB",
                                   baseline: nil, baselineValue: nil, ratio: nil))
    }

    /// Seed offsets of the robustness rows (`EchoRoom.seedOffsets`): 0 is the table above (room
    /// seed = its delay, double talk seed 3); the others draw other rooms (seed = offset + delay;
    /// double talk: the offset).
    static let seedOffsets = EchoRoom.seedOffsets

    /// Our canceller with our RES over other random rooms of each shape: per room the worst
    /// ERLE and the worst convergence over `seedOffsets`, the worst double-talk correlation
    /// (near end as recorded and 10 dB quieter),
    /// each against speex RES's worst on the same rooms; the per-seed figures are printed below.
    private func seedRobustness(far: [Int16]) throws {
        for room in EchoRoom.standard {
            let label = room.description
            var worst: [EchoCanceller.ResidualSuppression: (erle: Double, convergence: Double)] = [:]
            var detail = "  per seed \(label), our RES (ERLE dB / convergence s):"
            for offset in Self.seedOffsets {
                let path = room.path(sampleRate: Self.rate, seedOffset: offset)
                let microphone = path.echo(of: far)
                for suppression in Self.seededSuppressions {
                    let output = try Self.cancel(.init(sampleRate: Self.rate, residualSuppression: suppression),
                                                 microphone: microphone, far: far)
                    let erle = Self.erle(microphone: microphone, residual: output)
                    let convergence = Self.convergence(microphone: microphone, residual: output)
                    let previous = worst[suppression] ?? (.infinity, 0)
                    worst[suppression] = (min(previous.erle, erle), max(previous.convergence, convergence))
                    if suppression == .ours { detail += String(format: " [%d] %.1f / %.1f", offset, erle, convergence) }
                }
            }
            let ours = worst[.ours]!, speex = worst[.speexdsp]!
            report.add(BenchmarkFigure(group: Self.group, name: "worst of 4 seeds: ERLE \(label), our RES", value: ours.erle, unit: "dB",
                                       baseline: "speex RES", baselineValue: speex.erle, ratio: nil))
            report.add(BenchmarkFigure(group: Self.group, name: "worst of 4 seeds: conv. 20 dB \(label), our RES", value: ours.convergence,
                                       unit: "s", baseline: "speex RES", baselineValue: speex.convergence, ratio: nil))
            print(detail)
        }
        let near = try SpeechFixture.samples(SpeechFixture.bob)
        let start = 4 * Self.rate
        for (suffix, scale) in [("", Float(1)), (" (near −10 dB)", Float(0.316))] {
            let cleanNear = [Int16](repeating: 0, count: start) + near.prefix(far.count - start).map { Int16(Float($0) * scale) }
            let clean = Array(cleanNear[start...])
            var worst: [EchoCanceller.ResidualSuppression: Double] = [:]
            var detail = "  per seed double talk\(suffix), our RES (corr):"
            for offset in Self.seedOffsets {
                let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, seed: offset == 0 ? 3 : offset)
                let microphone = zip(path.echo(of: far), cleanNear).map { Int16(clamping: Int($0) + Int($1)) }
                for suppression in Self.seededSuppressions {
                    let output = try Self.cancel(.init(sampleRate: Self.rate, residualSuppression: suppression),
                                                 microphone: microphone, far: far)
                    let correlation = SignalComparison.bestCorrelation(reference: clean, signal: Array(output[start...]), maxLag: 200).correlation
                    worst[suppression] = min(worst[suppression] ?? 1, correlation)
                    if suppression == .ours { detail += String(format: " [%d] %.3f", offset, correlation) }
                }
            }
            report.add(BenchmarkFigure(group: Self.group, name: "worst of 4 seeds: double talk corr\(suffix), our RES", value: worst[.ours]!,
                                       unit: "corr", baseline: "speex RES", baselineValue: worst[.speexdsp]!, ratio: nil))
            print(detail)
        }
    }

    /// µs per 10 ms frame, each row against the raw speexdsp calls with the same settings:
    /// the speexdsp part through our wrapper (alignment delay line, estimator off) with
    /// speexdsp's residual suppressor (raw: `speex_echo_cancellation` + `speex_preprocess_run`)
    /// and without one (raw: `speex_echo_cancellation`); our residual suppressor alone (against
    /// `speex_preprocess_run`, the stage it replaces); and the full canceller with each
    /// suppressor (estimator on), against the raw echo + preprocess calls.
    private func cost(rate: Int) throws {
        let far = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: rate)
        let frameCount = rate / 100
        let frames = 200
        let path = EchoPath(sampleRate: rate, rt60Ms: 200, bulkDelayMs: 0, gainDb: -6, seed: 1)
        let microphone = path.echo(of: Array(far.prefix(frames * frameCount)))
        let farFrames = Array(far.prefix(frames * frameCount))
        var output = [Int16](repeating: 0, count: frameCount)
        let tail = rate * 200 / 1_000
        guard let echo = speex_echo_state_init(Int32(frameCount), Int32(tail)),
              let preprocess = speex_preprocess_state_init(Int32(frameCount), Int32(rate)) else { throw BenchmarkError.setup("speex state") }
        defer { speex_echo_state_destroy(echo); speex_preprocess_state_destroy(preprocess) }
        var sampleRate = Int32(rate)
        _ = speex_echo_ctl(echo, SPEEX_ECHO_SET_SAMPLING_RATE, &sampleRate)
        var one: Int32 = 1, noise: Int32 = -15, suppress: Int32 = -45, active: Int32 = -15
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_DENOISE, &one)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &noise)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &suppress)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &active)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_ECHO_STATE, UnsafeMutableRawPointer(echo))
        let prefix = "cost \(rate / 1_000) kHz "
        let rows: [(name: String, suppression: EchoCanceller.ResidualSuppression, estimation: Bool, rawPreprocess: Bool)] = [
            ("speexdsp part, speex RES", .speexdsp, false, true),
            ("speexdsp part, linear only", .none, false, false),
            ("full canceller, speex RES", .speexdsp, true, true),
            ("full canceller, our RES", .ours, true, true),
        ]
        for row in rows {
            let canceller = try EchoCanceller(configuration: .init(sampleRate: rate, residualSuppression: row.suppression,
                                                                   delayEstimation: row.estimation))
            let result = microphone.withUnsafeBufferPointer { mic in
                farFrames.withUnsafeBufferPointer { farBuffer in
                    output.withUnsafeMutableBufferPointer { out in
                        comparison.run(operations: frames, ours: {
                            for frame in 0..<frames {
                                let range = (frame * frameCount)..<((frame + 1) * frameCount)
                                canceller.process(microphone: UnsafeBufferPointer(rebasing: mic[range]),
                                                  farEnd: UnsafeBufferPointer(rebasing: farBuffer[range]), output: out)
                            }
                        }, baseline: {
                            for frame in 0..<frames {
                                speex_echo_cancellation(echo, mic.baseAddress! + frame * frameCount,
                                                        farBuffer.baseAddress! + frame * frameCount, out.baseAddress!)
                                if row.rawPreprocess { _ = speex_preprocess_run(preprocess, out.baseAddress!) }
                            }
                        })
                    }
                }
            }
            report.add(group: Self.group, name: prefix + row.name, unit: "us/frame",
                       baseline: row.rawPreprocess ? "raw speexdsp calls" : "raw speex_echo_cancellation", result: result)
        }
        try residualSuppressorCost(rate: rate, microphone: microphone, far: farFrames, echo: echo, preprocess: preprocess)
    }

    /// Our residual suppressor on its own, µs per frame, on the linear filter's output of the
    /// same signal, against `speex_preprocess_run` linked to the echo state (speexdsp's
    /// residual suppressor, the stage ours replaces) on the same frames.
    private func residualSuppressorCost(rate: Int, microphone: [Int16], far: [Int16], echo: OpaquePointer,
                                        preprocess: OpaquePointer) throws {
        let frameCount = rate / 100
        let frames = microphone.count / frameCount
        var linear = [Int16](repeating: 0, count: microphone.count)
        microphone.withUnsafeBufferPointer { mic in
            far.withUnsafeBufferPointer { farBuffer in
                linear.withUnsafeMutableBufferPointer { out in
                    for frame in 0..<frames {
                        speex_echo_cancellation(echo, mic.baseAddress! + frame * frameCount, farBuffer.baseAddress! + frame * frameCount,
                                                out.baseAddress! + frame * frameCount)
                    }
                }
            }
        }
        let suppressor = ResidualEchoSuppressor(frameCount: frameCount, sampleRate: rate)
        var output = [Int16](repeating: 0, count: frameCount)
        let result = microphone.withUnsafeBufferPointer { mic in
            far.withUnsafeBufferPointer { farBuffer in
                linear.withUnsafeBufferPointer { linearBuffer in
                    output.withUnsafeMutableBufferPointer { out in
                        comparison.run(operations: frames, ours: {
                            for frame in 0..<frames {
                                let offset = frame * frameCount
                                suppressor.process(microphone: mic.baseAddress! + offset, linearOutput: linearBuffer.baseAddress! + offset,
                                                   farEnd: farBuffer.baseAddress! + offset, output: out.baseAddress!)
                            }
                        }, baseline: {
                            for frame in 0..<frames {
                                // The same input each frame: a copy (which ours does not need) then the in-place call.
                                out.baseAddress!.update(from: linearBuffer.baseAddress! + frame * frameCount, count: frameCount)
                                _ = speex_preprocess_run(preprocess, out.baseAddress!)
                            }
                        })
                    }
                }
            }
        }
        report.add(group: Self.group, name: "cost \(rate / 1_000) kHz our RES alone", unit: "us/frame",
                   baseline: "speex_preprocess_run (speex RES)", result: result)
    }
}
