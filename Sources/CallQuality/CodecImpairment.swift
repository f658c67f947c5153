// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A codec's impairment on G.107.1's wideband scale (``WidebandEModel``): its equipment
/// impairment factor Ie,WB (what the codec costs with no loss) and its packet-loss robustness
/// factor Bpl,WB (how well its concealment hides loss).
public struct CodecImpairment: Sendable, Equatable {
    /// Ie,WB, 0–129.
    public var equipmentImpairment: Double
    /// Bpl,WB: the larger, the less each lost packet costs.
    public var packetLossRobustness: Double
    /// Whether G.107's burst ratio (BurstR) raises what a share of misses costs, as G.107.1
    /// has it for a codec whose concealment worsens along a burst. Not for Opus as this
    /// library plays it: on `benchmarks quality`'s bursty row (9 % loss, BurstR 1.6–1.7) PESQ-WB
    /// scored 1.75 without FEC and 1.99–2.00 with it, where weighing the bursts put the
    /// estimate 0.6 and 0.3 below and not weighing them 0.19 and 0.08–0.09 below; its Bpl,WB
    /// values, fitted on random loss, already price what a miss costs.
    public var weighsBursts: Bool

    /// A codec with the given factors.
    public init(equipmentImpairment: Double, packetLossRobustness: Double, weighsBursts: Bool = true) {
        self.equipmentImpairment = equipmentImpairment
        self.packetLossRobustness = packetLossRobustness
        self.weighsBursts = weighsBursts
    }

    /// Opus (libopus, 48 kHz mono, `OPUS_APPLICATION_VOIP`, complexity 10) at `bitsPerSecond`
    /// in frames of `frameDurationMs`, with in-band FEC planned for `fecPlannedLossPercent` (0:
    /// none).
    ///
    /// **10 ms frames** cost more at most bitrates (PESQ-WB on the fixtures: 3.93 against 4.06
    /// at 32 kb/s, 3.57 against 3.80 at 24) and their losses less (each misses half as much
    /// speech): Ie,WB and Bpl,WB at 10 ms are measured as below (`scripts/opus-impairment-factors
    /// --frame-ms 10`: `opusImpairmentsAt10ms`; Bpl,WB 9.5 at 24 kb/s and 8.1 at 32 against 6.7
    /// and 6.0, which scale the FEC plans' robustness). FEC costs a 10 ms frame two to three
    /// times what it costs a 20 ms one (`opusFECCostsAt24kAt10ms`, `opusFECCostsAt32kAt10ms`:
    /// 21.8 Ie,WB for a 2 % plan at 32 kb/s against 8.6); the robustness FEC plans buy was
    /// measured at 20 ms only and is scaled as above. 40 and 60 ms frames take the 20 ms
    /// factors (not measured).
    ///
    /// **Where the numbers come from.** ITU-T G.113, which lists planning values of Ie,WB and
    /// Bpl for standard wideband codecs, gives none for Opus that this project knows of, and we
    /// cite no peer-reviewed measurement. So they are measured here, and they are estimates:
    /// `scripts/opus-impairment-factors` runs the two speech fixtures of `vectors/speech/`
    /// (espeak-ng synthetic speech, 8 s each) through libopus 1.3.1 (Debian 12), scores them
    /// with ITU-T P.862.2 (PESQ-WB, PyPI `pesq` 0.0.4) and turns the mean MOS-LQO into Ie,WB the
    /// way ITU-T P.834.1 derives wideband impairment factors from an instrumental model: MOS →
    /// R by inverting G.107 Annex B, R_WB = 1.29 R, Ie,WB = 129 − R_WB (`opusImpairments`).
    /// Bpl,WB = 6.7 is the least-squares fit of G.107.1's Ie,eff,WB to eight random-loss
    /// conditions (1–20 %, libopus PLC, 8 loss patterns each) at 24 kb/s (rms error 2.8 R
    /// points), 6.0 at 32 kb/s (rms 3.2).
    ///
    /// In-band FEC takes its bits from the primary coding, and what it costs depends on the
    /// bitrate, because libopus decides per bitrate whether a plan codes FEC at all: at 24 kb/s
    /// a plan under 6 % codes none (FEC appears at 6 %, by dropping to wideband), at 32 kb/s any
    /// plan of 1 % or more codes it at fullband. With no loss, FEC planned for 2, 5, 6, 10 and
    /// 20 % loss costs 2.5, 3.9, 16.6, 20.8 and 38.3 Ie,WB points at 24 kb/s, and 8.6, 14.3,
    /// 16.6, 20.4 and 29.0 at 32 kb/s (`opusFECCostsAt24k`, `opusFECCostsAt32k`). An encoder
    /// told to expect loss also predicts less from frame to frame, so the packets FEC does not
    /// rebuild are concealed better: Bpl,WB fitted on 1–8 % random loss concealed by PLC is
    /// 10.8, 14.4 and 21.0 with FEC planned for 5, 10 and 20 % at 24 kb/s (rms 2.8, 1.7, 1.0),
    /// 11.2, 12.7 and 14.7 at 32 kb/s (rms 2.5, 2.2, 1.7; `opusRobustnessAt24k`,
    /// `opusRobustnessAt32k`). Between 24 and 32 kb/s these FEC factors are interpolated on
    /// log2(bitrate); outside, the nearest table holds, for they were measured at those two
    /// bitrates only.
    ///
    /// PESQ on synthetic speech is an estimate of an estimate: these values make the E-model
    /// agree with PESQ-WB on these fixtures, which is what they are for.
    public static func opus(bitsPerSecond: Double, fecPlannedLossPercent: Double = 0, frameDurationMs: Int = 20) -> CodecImpairment {
        let rate = bitsPerSecond.isFinite && bitsPerSecond > 0 ? bitsPerSecond : 24_000
        let isShortFrame = frameDurationMs <= 10
        let impairment = interpolate(isShortFrame ? opusImpairmentsAt10ms : opusImpairments, at: log2(rate), logarithmic: true)
        let fec = fecPlannedLossPercent.isFinite ? min(max(fecPlannedLossPercent, 0), 100) : 0
        // How far from the 24 kb/s tables toward the 32 kb/s ones, on the logarithmic scale
        // Ie,WB is interpolated on; 0 below 24 kb/s, 1 above 32 kb/s. Weighted as
        // low · (1 − share) + high · share so that each table's bitrate gives its values exactly.
        let low = log2(opusFECBitrates.low), high = log2(opusFECBitrates.high)
        let share = min(max((log2(rate) - low) / (high - low), 0), 1)
        let fecCost = isShortFrame
            ? interpolate(opusFECCostsAt24kAt10ms, at: fec) * (1 - share) + interpolate(opusFECCostsAt32kAt10ms, at: fec) * share
            : interpolate(opusFECCostsAt24k, at: fec) * (1 - share) + interpolate(opusFECCostsAt32k, at: fec) * share
        var robustness = interpolate(opusRobustnessAt24k, at: fec) * (1 - share) + interpolate(opusRobustnessAt32k, at: fec) * share
        if isShortFrame {
            let low = opusShortFrameRobustness.low, high = opusShortFrameRobustness.high
            robustness *= low * (1 - share) + high * share
        }
        return CodecImpairment(equipmentImpairment: min(impairment + fecCost, WidebandEModel.maximumRating),
                               packetLossRobustness: robustness, weighsBursts: false)
    }

    /// G.711 (PCMU or PCMA) as a call plays it (decoded at 8 kHz, concealed by
    /// `WaveformConcealment`, resampled to the call's rate), measured as the Opus factors are:
    /// `benchmarks codec-quality` scores the same two fixtures with PESQ-WB (MOS-LQO 2.98 PCMU,
    /// 3.02 PCMA; a narrow-band codec scored on the wide-band scale) → Ie,WB 54.6 and 53.6, their
    /// mean here; Bpl,WB fitted over 3, 5 and 10 % random loss, 3 seeds each: 22.5 and 22.0
    /// (rms 1.2–1.3). G.113's subjective planning values put G.711 and G.722 higher on the
    /// wide-band scale than PESQ-WB does on synthetic speech; like the Opus factors, these make
    /// the E-model agree with PESQ-WB, which is what they are for.
    public static let g711 = CodecImpairment(equipmentImpairment: 54.1, packetLossRobustness: 22.3)

    /// G.722 at 64 kb/s as a call plays it (spandsp, `WaveformConcealment`, resampled), measured
    /// as `g711`: PESQ-WB 3.12 → Ie,WB 51.0; Bpl,WB 13.4 (rms 1.3).
    public static let g722 = CodecImpairment(equipmentImpairment: 51.0, packetLossRobustness: 13.4)

    /// Ie,WB of Opus by bitrate (b/s), no FEC, no loss, from PESQ-WB MOS-LQO 2.976, 3.257,
    /// 3.628, 3.801, 4.061, 4.226 and 4.316 (`scripts/opus-impairment-factors`).
    static let opusImpairments: [(Double, Double)] = [
        (12_000, 54.7), (16_000, 47.6), (20_000, 37.8), (24_000, 32.9), (32_000, 24.5), (40_000, 18.2), (64_000, 14.1),
    ]
    /// Ie,WB of Opus by bitrate (b/s) in 10 ms frames, no FEC, no loss, from PESQ-WB MOS-LQO
    /// 2.434, 3.230, 3.333, 3.574, 3.932, 4.192 and 4.451 (`scripts/opus-impairment-factors
    /// --frame-ms 10`).
    static let opusImpairmentsAt10ms: [(Double, Double)] = [
        (12_000, 68.0), (16_000, 48.3), (20_000, 45.7), (24_000, 39.3), (32_000, 28.8), (40_000, 19.6), (64_000, 5.7),
    ]
    /// Bpl,WB in 10 ms frames over Bpl,WB in 20 ms frames, no FEC, at the FEC tables' two
    /// bitrates (9.5 / 6.7 at 24 kb/s, rms 2.4; 8.1 / 6.0 at 32 kb/s, rms 3.0).
    static let opusShortFrameRobustness = (low: 9.5 / 6.7, high: 8.1 / 6.0)

    /// The bitrate (b/s) an Opus sender's encoder was set to, from the payload rate a receiver
    /// counts while it talks (`payloadBitsPerSecond`, its packets of talk and their short
    /// pauses): libopus in constrained VBR spends less than its target on speech, the more so
    /// the higher the target (on the fixtures 94 % of it at 24 kb/s, 92 % at 32), and
    /// `opus(bitsPerSecond:)` is tabulated by the target. Read from `opusPayloadRates`, or
    /// `opusPayloadRatesAt10ms` for frames of 10 ms or less (`frameDurationMs`), interpolated on
    /// log2, proportionally beyond its ends.
    public static func opusTargetBitsPerSecond(payloadBitsPerSecond: Double, frameDurationMs: Int = 20) -> Double {
        guard payloadBitsPerSecond.isFinite, payloadBitsPerSecond > 0 else { return payloadBitsPerSecond }
        let table = frameDurationMs <= 10 ? opusPayloadRatesAt10ms : opusPayloadRates
        let first = table[0], last = table[table.count - 1]
        if payloadBitsPerSecond <= first.0 { return payloadBitsPerSecond * first.1 / first.0 }
        if payloadBitsPerSecond >= last.0 { return payloadBitsPerSecond * last.1 / last.0 }
        // Log-log interpolation without a mapped copy (this runs in every RTCP report).
        for index in 1..<table.count where payloadBitsPerSecond <= table[index].0 {
            let low = table[index - 1], high = table[index]
            let share = log2(payloadBitsPerSecond / low.0) / log2(high.0 / low.0)
            return exp2(log2(low.1) + share * log2(high.1 / low.1))
        }
        return payloadBitsPerSecond * last.1 / last.0
    }

    /// libopus's mean payload rate (b/s) over the talk of the two fixtures the Opus factors
    /// were measured on — from the first word to the last, their short pauses included, as
    /// `SpeechPacketFilter` counts talk — for each encoder target of `opusImpairments` (b/s;
    /// `scripts/opus-impairment-factors`' encoder settings). Over every packet of the fixtures
    /// (their silence before the first word and after the last too, as the filter counted
    /// before it waited for talk to resume and for a word to stand out of the silence) the
    /// rates were 10.78, 15.96, 19.13, 22.63, 29.47, 36.26 and 58.27 kb/s; these are the
    /// script's "talk b/s" column, which counts as the filter does.
    static let opusPayloadRates: [(Double, Double)] = [
        (11_130, 12_000), (16_470, 16_000), (19_790, 20_000), (23_360, 24_000), (30_360, 32_000), (37_320, 40_000), (59_520, 64_000),
    ]
    /// The same in 10 ms frames (twice the packets, each with its own TOC byte and framing: at
    /// 20 kb/s and above, more than the target; `scripts/opus-impairment-factors --frame-ms 10`).
    static let opusPayloadRatesAt10ms: [(Double, Double)] = [
        (11_540, 12_000), (14_930, 16_000), (21_810, 20_000), (25_010, 24_000), (32_160, 32_000), (39_470, 40_000), (61_530, 64_000),
    ]

    /// The bitrates (b/s) of the FEC tables: `opusFECCostsAt24k` and `opusRobustnessAt24k`
    /// hold at and below `low`, the 32 kb/s ones at and above `high`.
    static let opusFECBitrates = (low: 24_000.0, high: 32_000.0)
    /// What in-band FEC planned for a loss (percent) adds to Ie,WB at 24 kb/s (MOS-LQO 3.714,
    /// 3.665, 3.185, 3.016, 2.306 for plans of 2, 5, 6, 10, 20 % against 3.801 without). The
    /// step from 5 to 6 % is libopus starting to code FEC.
    static let opusFECCostsAt24k: [(Double, Double)] = [(0, 0), (2, 2.5), (5, 3.9), (6, 16.6), (10, 20.8), (20, 38.3), (100, 38.3)]
    /// What in-band FEC planned for a loss (percent) adds to Ie,WB at 32 kb/s (MOS-LQO 3.794,
    /// 3.592, 3.508, 3.362, 3.023 for plans of 2, 5, 6, 10, 20 % against 4.061 without). Here
    /// libopus codes FEC from a plan of 1 %, so small plans cost more than at 24 kb/s.
    static let opusFECCostsAt32k: [(Double, Double)] = [(0, 0), (2, 8.6), (5, 14.3), (6, 16.6), (10, 20.4), (20, 29.0), (100, 29.0)]
    /// What in-band FEC planned for a loss (percent) adds to Ie,WB at 24 kb/s in 10 ms frames
    /// (MOS-LQO 3.274, 3.140, 2.388, 2.212, 1.895 for plans of 2, 5, 6, 10, 20 % against 3.574
    /// without; `scripts/opus-impairment-factors --frame-ms 10`).
    static let opusFECCostsAt24kAt10ms: [(Double, Double)] = [(0, 0), (2, 7.9), (5, 11.3), (6, 29.8), (10, 34.3), (20, 42.6), (100, 42.6)]
    /// What in-band FEC planned for a loss (percent) adds to Ie,WB at 32 kb/s in 10 ms frames
    /// (MOS-LQO 3.141, 2.901, 2.767, 2.565, 2.238 for plans of 2, 5, 6, 10, 20 % against 3.932
    /// without).
    static let opusFECCostsAt32kAt10ms: [(Double, Double)] = [(0, 0), (2, 21.8), (5, 27.7), (6, 31.0), (10, 35.9), (20, 44.1), (100, 44.1)]
    /// Bpl,WB of Opus's concealment at 24 kb/s by the loss its FEC is planned for (percent).
    static let opusRobustnessAt24k: [(Double, Double)] = [(0, 6.7), (5, 10.8), (10, 14.4), (20, 21.0), (100, 21.0)]
    /// Bpl,WB of Opus's concealment at 32 kb/s by the loss its FEC is planned for (percent).
    static let opusRobustnessAt32k: [(Double, Double)] = [(0, 6.0), (5, 11.2), (10, 12.7), (20, 14.7), (100, 14.7)]

    /// The value of the piecewise-linear `table` at `x` (by its first elements, or their
    /// base-2 logarithms when `logarithmic`), held at the end values outside it.
    ///
    /// Indices and no closures: it runs in every RTCP report (the quality estimate in the XR
    /// block), which allocates nothing.
    private static func interpolate(_ table: [(Double, Double)], at x: Double, logarithmic: Bool = false) -> Double {
        func key(_ value: Double) -> Double { logarithmic ? log2(value) : value }
        guard !table.isEmpty else { return 0 }
        // Subscripts, not `first`/`last`: unspecialized (debug builds), those allocate.
        let first = table[0], last = table[table.count - 1]
        if x <= key(first.0) { return first.1 }
        if x >= key(last.0) { return last.1 }
        for index in 1..<table.count where x <= key(table[index].0) {
            let low = table[index - 1], high = table[index]
            let share = (x - key(low.0)) / (key(high.0) - key(low.0))
            return low.1 + share * (high.1 - low.1)
        }
        return last.1
    }
}
