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

    /// Opus (libopus, 48 kHz mono, `OPUS_APPLICATION_VOIP`, 20 ms frames, complexity 10) at
    /// `bitsPerSecond`, with in-band FEC planned for `fecPlannedLossPercent` (0: none).
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
    /// points). In-band FEC takes its bits from the primary coding: planned for 2, 5, 10 and 20 %
    /// loss it costs 2.5, 3.9, 20.8 and 38.3 Ie,WB points at 24 kb/s, with no loss
    /// (`opusFECCosts`). An encoder told to expect loss also predicts less from frame to
    /// frame, so the packets FEC does not rebuild are concealed better: Bpl,WB fitted on 1–8 %
    /// random loss concealed by PLC is 10.8, 14.4 and 21.0 with FEC planned for 5, 10 and 20 %
    /// (rms 2.8, 1.7, 1.0; `opusRobustness`). PESQ on synthetic speech is an estimate of an
    /// estimate: these values make the E-model agree with PESQ-WB on these fixtures, which is
    /// what they are for.
    public static func opus(bitsPerSecond: Double, fecPlannedLossPercent: Double = 0) -> CodecImpairment {
        let rate = bitsPerSecond.isFinite && bitsPerSecond > 0 ? bitsPerSecond : 24_000
        let impairment = interpolate(opusImpairments, at: log2(rate), logarithmic: true)
        let fec = fecPlannedLossPercent.isFinite ? min(max(fecPlannedLossPercent, 0), 100) : 0
        let fecCost = interpolate(opusFECCosts, at: fec)
        return CodecImpairment(equipmentImpairment: min(impairment + fecCost, WidebandEModel.maximumRating),
                               packetLossRobustness: interpolate(opusRobustness, at: fec), weighsBursts: false)
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
    /// What in-band FEC planned for a loss (percent) adds to Ie,WB at 24 kb/s (MOS-LQO 3.714,
    /// 3.665, 3.016, 2.306 against 3.801 without), applied at every bitrate.
    static let opusFECCosts: [(Double, Double)] = [(0, 0), (2, 2.5), (5, 3.9), (10, 20.8), (20, 38.3), (100, 38.3)]
    /// Bpl,WB of Opus's concealment by the loss its FEC is planned for (percent), fitted at
    /// 24 kb/s, applied at every bitrate.
    static let opusRobustness: [(Double, Double)] = [(0, 6.7), (5, 10.8), (10, 14.4), (20, 21.0), (100, 21.0)]

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
