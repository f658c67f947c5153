// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The ITU-T G.107 E-model (06/2015): the transmission rating R of a narrowband (300–3400 Hz)
/// connection from its planning parameters, and the MOS it predicts (Annex B).
///
/// `R = Ro − Is − Id − Ie,eff + A`: Ro, the basic signal-to-noise ratio (circuit and room
/// noise); Is, impairments simultaneous with speech (loudness, sidetone, quantizing); Id,
/// delay impairments (talker echo, listener echo, absolute delay); Ie,eff, the codec's
/// equipment impairment under packet loss; A, the advantage of access. Every parameter
/// defaults to G.107 Table 3's default, for which R is 93.2.
///
/// Inputs come from the caller (and, in a call, from the network): every formula is guarded so
/// that out-of-range or non-finite values give a finite R rather than a trap — parameters are
/// clamped to the ranges G.107 Table 3 allows where a formula would break outside them.
public struct EModel: Sendable, Equatable {
    /// Send loudness rating SLR, dB (default 8).
    public var sendLoudnessRating = 8.0
    /// Receive loudness rating RLR, dB (default 2).
    public var receiveLoudnessRating = 2.0
    /// Sidetone masking rating STMR, dB (default 15).
    public var sidetoneMaskingRating = 15.0
    /// Listener sidetone rating LSTR = STMR + Dr, dB (default 18: Dr, the receive side's
    /// D-value, is 3).
    public var listenerSidetoneRating = 18.0
    /// D-value of the telephone, send side Ds (default 3).
    public var sendSideDValue = 3.0
    /// Talker echo loudness rating TELR, dB (default 65).
    public var talkerEchoLoudnessRating = 65.0
    /// Weighted echo path loss WEPL, dB (default 110).
    public var weightedEchoPathLoss = 110.0
    /// Mean one-way delay of the echo path T, ms (default 0).
    public var echoPathDelayMs = 0.0
    /// Round-trip delay in a 4-wire loop Tr, ms (default 0).
    public var roundTripDelayMs = 0.0
    /// Absolute (mouth-to-ear) delay Ta, ms (default 0).
    public var absoluteDelayMs = 0.0
    /// Quantizing distortion units qdu (default 1).
    public var quantizingDistortionUnits = 1.0
    /// Equipment impairment factor Ie of the codec (default 0).
    public var equipmentImpairment = 0.0
    /// Packet-loss robustness factor Bpl of the codec and its concealment (default 4.3).
    public var packetLossRobustness = 4.3
    /// Packet-loss probability Ppl, percent (default 0).
    public var packetLossPercent = 0.0
    /// Burst ratio BurstR: 1 for random loss, above 1 for bursty loss (default 1).
    public var burstRatio = 1.0
    /// Circuit noise Nc referred to the 0 dBr point, dBm0p (default −70).
    public var circuitNoise = -70.0
    /// Noise floor at the receive side Nfor, dBmp (default −64).
    public var receiveNoiseFloor = -64.0
    /// Room noise at the send side Ps, dB(A) (default 35).
    public var sendRoomNoise = 35.0
    /// Room noise at the receive side Pr, dB(A) (default 35).
    public var receiveRoomNoise = 35.0
    /// Advantage factor A (default 0).
    public var advantageFactor = 0.0
    /// Delay sensitivity sT of the absolute-delay impairment (default 1).
    public var delaySensitivity = 1.0
    /// Minimum perceivable delay mT, ms: Idd is 0 up to it (default 100).
    public var minimumPerceivableDelayMs = 100.0

    /// G.107's default connection (R = 93.2).
    public init() {}

    // MARK: R and its parts

    /// The transmission rating R (G.107 §7.1), finite for any input.
    public var rating: Double {
        basicSignalToNoiseRatio - simultaneousImpairment - delayImpairment - effectiveEquipmentImpairment + Self.finite(advantageFactor)
    }

    /// The basic signal-to-noise ratio Ro = 15 − 1.5 (SLR + No) (§7.2).
    public var basicSignalToNoiseRatio: Double {
        15 - 1.5 * (Self.finite(sendLoudnessRating) + totalNoise)
    }

    /// The simultaneous impairment factor Is = Iolr + Ist + Iq (§7.3).
    public var simultaneousImpairment: Double {
        let no = totalNoise
        let rlr = Self.finite(receiveLoudnessRating)
        let xolr = overallLoudnessRating + 0.2 * (64 + no - rlr)
        let iolr = 20 * (pow(1 + pow(xolr / 8, 8), 1.0 / 8) - xolr / 8)
        let q = 37 - 15 * log10(min(max(Self.finite(quantizingDistortionUnits, default: 1), 1), 14))
        let g = 1.07 + 0.258 * q + 0.0602 * q * q
        let z = 46.0 / 30 - g / 40
        let y = (basicSignalToNoiseRatio - 100) / 15 + 46 / 8.4 - g / 9
        let iq = 15 * log10(1 + pow(10, y) + pow(10, z))
        return Self.finite(iolr + sidetoneImpairment + iq, default: 0)
    }

    /// The delay impairment factor Id = Idte + Idle + Idd (§7.4).
    public var delayImpairment: Double {
        talkerEchoImpairment + listenerEchoImpairment + absoluteDelayImpairment
    }

    /// Idte, the impairment of talker echo (§7.4).
    public var talkerEchoImpairment: Double {
        let t = echoPathDelay
        guard t >= 1 else { return 0 }  // under 1 ms an echo is sidetone, counted in Ist
        let roe = -1.5 * (totalNoise - Self.finite(receiveLoudnessRating))
        var terv = Self.finite(talkerEchoLoudnessRating) - 40 * log10((1 + t / 10) / (1 + t / 150)) + 6 * exp(-0.3 * t * t)
        if Self.finite(sidetoneMaskingRating) < 9 { terv += sidetoneImpairment / 2 }
        let re = 80 + 2.5 * (terv - 14)
        let value = ((roe - re) / 2 + ((roe - re) * (roe - re) / 4 + 100).squareRoot() - 1) * (1 - exp(-t))
        return Self.finite(value, default: 0)
    }

    /// Idle, the impairment of listener echo (§7.4).
    public var listenerEchoImpairment: Double {
        let tr = max(Self.finite(roundTripDelayMs), 0)
        let rle = 10.5 * (Self.finite(weightedEchoPathLoss) + 7) * pow(tr + 1, -0.25)
        let difference = basicSignalToNoiseRatio - rle
        return Self.finite(difference / 2 + (difference * difference / 4 + 169).squareRoot(), default: 0)
    }

    /// Idd, the impairment of absolute delay Ta: 0 up to mT, then rising (§7.4).
    public var absoluteDelayImpairment: Double {
        let ta = min(max(Self.finite(absoluteDelayMs), 0), 100_000)
        let mt = min(max(Self.finite(minimumPerceivableDelayMs, default: 100), 1), 100_000)
        guard ta > mt else { return 0 }
        let st = min(max(Self.finite(delaySensitivity, default: 1), 0.1), 10)
        let x = log10(ta / mt) / log10(2)
        let exponent = 6 * st
        let value = 25 * (pow(1 + pow(x, exponent), 1 / exponent) - 3 * pow(1 + pow(x / 3, exponent), 1 / exponent) + 2)
        return Self.finite(value, default: 0)
    }

    /// Ie,eff = Ie + (95 − Ie) · Ppl / (Ppl / BurstR + Bpl) (§7.5).
    public var effectiveEquipmentImpairment: Double {
        Self.effectiveImpairment(equipmentImpairment, ceiling: 95, robustness: packetLossRobustness,
                                 lossPercent: packetLossPercent, burstRatio: burstRatio)
    }

    // MARK: MOS

    /// The MOS (conversational quality, 1–4.5) G.107 Annex B predicts for a rating `r`:
    /// 1 + 0.035 R + R (R − 60)(100 − R) · 7·10⁻⁶ between 0 and 100, held at 1 below (the
    /// cubic dips under 1 for R below 6.5) and 4.5 above.
    public static func meanOpinionScore(rating r: Double) -> Double {
        guard r.isFinite else { return r == .infinity ? 4.5 : 1 }
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return max(1, 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6)
    }

    // MARK: Shared pieces

    /// Ie,eff for a codec's `impairment` on a scale whose best rating is `ceiling` (95 in
    /// G.107, 129 in G.107.1), with robustness Bpl, loss Ppl (percent) and BurstR; Ppl is held
    /// to 0–100, BurstR to at least 1 (random), Bpl to at least 1 (G.107 Table 3's range starts at
    /// 4.3 for G.711 without concealment; some codecs' measured values are lower still).
    static func effectiveImpairment(_ impairment: Double, ceiling: Double, robustness: Double, lossPercent: Double,
                                    burstRatio: Double) -> Double {
        let ie = min(max(finite(impairment), 0), ceiling)
        let ppl = min(max(finite(lossPercent), 0), 100)
        let burst = max(finite(burstRatio, default: 1), 1)
        let bpl = max(finite(robustness, default: 4.3), 1)
        return ie + (ceiling - ie) * ppl / (ppl / burst + bpl)
    }

    private var overallLoudnessRating: Double { Self.finite(sendLoudnessRating) + Self.finite(receiveLoudnessRating) }

    private var echoPathDelay: Double { min(max(Self.finite(echoPathDelayMs), 0), 100_000) }

    /// Ist, the impairment of non-optimum sidetone (§7.3).
    private var sidetoneImpairment: Double {
        let stmro = -10 * log10(pow(10, -Self.finite(sidetoneMaskingRating) / 10)
            + exp(-echoPathDelay / 4) * pow(10, -Self.finite(talkerEchoLoudnessRating) / 10))
        return 12 * pow(1 + pow((stmro - 13) / 6, 8), 1.0 / 8) - 28 * pow(1 + pow((stmro + 1) / 19.4, 35), 1.0 / 35)
            - 13 * pow(1 + pow((stmro - 3) / 33, 13), 1.0 / 13) + 29
    }

    /// The power sum No of every noise source at the receive side, dBm0p (§7.2).
    private var totalNoise: Double {
        let slr = Self.finite(sendLoudnessRating), rlr = Self.finite(receiveLoudnessRating)
        let ds = Self.finite(sendSideDValue), ps = Self.finite(sendRoomNoise), pr = Self.finite(receiveRoomNoise)
        let nos = ps - slr - ds - 100 + 0.004 * (ps - overallLoudnessRating - ds - 14) * (ps - overallLoudnessRating - ds - 14)
        let pre = pr + 10 * log10(1 + pow(10, (10 - Self.finite(listenerSidetoneRating)) / 10))
        let nor = rlr - 121 + pre + 0.008 * (pre - 35) * (pre - 35)
        let nfo = Self.finite(receiveNoiseFloor) + rlr
        let sum = pow(10, Self.finite(circuitNoise) / 10) + pow(10, nos / 10) + pow(10, nor / 10) + pow(10, nfo / 10)
        return Self.finite(10 * log10(sum), default: -61.18)
    }

    /// `value` if finite, else `default`; also held to ±10⁶, beyond any planning value, so
    /// powers and products below stay finite.
    static func finite(_ value: Double, default fallback: Double = 0) -> Double {
        value.isFinite ? min(max(value, -1e6), 1e6) : fallback
    }
}
