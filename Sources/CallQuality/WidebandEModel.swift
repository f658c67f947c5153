// SPDX-License-Identifier: Apache-2.0
/// The wideband E-model of ITU-T G.107.1 (50–7000 Hz), on its extended rating scale where a
/// clean wideband connection rates 129 (Ro,WB) instead of G.107's 93.2.
///
/// `R_WB = Ro,WB − Is,WB − Id,WB − Ie,eff,WB + A`, with Ro,WB = 129 and Is,WB = 0 (a connection
/// with G.107.1's default loudness, sidetone and noise), `Ie,eff,WB = Ie,WB + (129 − Ie,WB) ·
/// Ppl / (Ppl / BurstR + Bpl)`, and the delay impairment Id,WB taken as G.107's Id unscaled:
/// how much delay and echo disturb a conversation does not depend on the audio band (this is
/// our choice; it keeps the absolute-delay impairment Idd of G.107 and G.114 as it is).
///
/// **The MOS scale.** G.107's MOS (Annex B) is defined on R from 0 to 100. A wideband rating is
/// brought onto it by R = R_WB / 1.29 (the ratio of the two scales' best values, 129 / 100, as
/// G.107.1 relates them), and Annex B's mapping gives the MOS: a clean wideband connection with
/// no codec impairment rates 4.5. The Opus impairment values this module uses
/// (``CodecImpairment``) were derived through exactly this mapping from PESQ-WB (ITU-T P.862.2)
/// scores, so the MOS that comes out is comparable with P.862.2's MOS-LQO — the score the
/// project's quality benchmark measures calls with.
public struct WidebandEModel: Sendable, Equatable {
    /// The best rating on the wideband scale, Ro,WB.
    public static let maximumRating = 129.0
    /// R_WB / R: the wideband scale over G.107's.
    public static let scaleFactor = 1.29

    /// Absolute (mouth-to-ear) delay Ta, ms.
    public var absoluteDelayMs = 0.0
    /// Mean one-way delay of the talker echo path T, ms: Ta for a 4-wire VoIP terminal.
    public var echoPathDelayMs = 0.0
    /// Round-trip delay of a listener-echo loop Tr, ms: 2 Ta for a 4-wire VoIP terminal.
    public var roundTripDelayMs = 0.0
    /// Talker echo loudness rating TELR, dB (65: an echo-cancelled terminal, G.107's default).
    public var talkerEchoLoudnessRating = 65.0
    /// The codec's wideband equipment impairment factor Ie,WB.
    public var equipmentImpairment = 0.0
    /// The codec's packet-loss robustness factor Bpl,WB.
    public var packetLossRobustness = 4.3
    /// Packet-loss probability Ppl, percent (the packets the listener misses: lost or late).
    public var packetLossPercent = 0.0
    /// Burst ratio BurstR (1: random loss).
    public var burstRatio = 1.0
    /// Advantage factor A.
    public var advantageFactor = 0.0

    /// A clean connection: no delay, no codec impairment, no loss (R_WB = 129 − Id at 0 ms).
    public init() {}

    /// A connection between two 4-wire VoIP terminals with echo control (TELR 65, G.107's
    /// default) and `mouthToEarMs` of delay: the talker echo returns over the mouth-to-ear delay
    /// and the listener-echo loop is twice it. `codec` gives Ie,WB and Bpl,WB, `lossPercent` the
    /// share of packets the listener misses.
    public init(mouthToEarMs: Double, codec: CodecImpairment = CodecImpairment(equipmentImpairment: 0, packetLossRobustness: 4.3),
                lossPercent: Double = 0) {
        absoluteDelayMs = mouthToEarMs
        echoPathDelayMs = mouthToEarMs
        roundTripDelayMs = 2 * mouthToEarMs
        equipmentImpairment = codec.equipmentImpairment
        packetLossRobustness = codec.packetLossRobustness
        packetLossPercent = lossPercent
    }

    /// The wideband rating R_WB (up to 129), finite for any input.
    public var rating: Double {
        Self.maximumRating - delayImpairment - effectiveEquipmentImpairment + EModel.finite(advantageFactor)
    }

    /// The listening-quality rating: `rating` without the delay impairment (what a listener
    /// who does not talk back hears; RTCP XR's MOS-LQ).
    public var listeningRating: Double {
        Self.maximumRating - effectiveEquipmentImpairment + EModel.finite(advantageFactor)
    }

    /// Id,WB: G.107's delay impairment (talker echo, listener echo, absolute delay) for these
    /// delays and TELR, other parameters at G.107's defaults.
    public var delayImpairment: Double {
        var narrowband = EModel()
        narrowband.absoluteDelayMs = absoluteDelayMs
        narrowband.echoPathDelayMs = echoPathDelayMs
        narrowband.roundTripDelayMs = roundTripDelayMs
        narrowband.talkerEchoLoudnessRating = talkerEchoLoudnessRating
        return narrowband.delayImpairment
    }

    /// Ie,eff,WB = Ie,WB + (129 − Ie,WB) · Ppl / (Ppl / BurstR + Bpl).
    public var effectiveEquipmentImpairment: Double {
        EModel.effectiveImpairment(equipmentImpairment, ceiling: Self.maximumRating, robustness: packetLossRobustness,
                                   lossPercent: packetLossPercent, burstRatio: burstRatio)
    }

    /// `rating` on G.107's 0–100 scale (R_WB / 1.29), what RTCP XR's R factor carries.
    public var narrowbandScaleRating: Double { rating / Self.scaleFactor }

    /// The conversational MOS (delay included), 1–4.5: G.107 Annex B of R_WB / 1.29.
    public var meanOpinionScore: Double { EModel.meanOpinionScore(rating: narrowbandScaleRating) }

    /// The listening MOS (delay excluded), 1–4.5: G.107 Annex B of the listening rating / 1.29.
    public var listeningMeanOpinionScore: Double { EModel.meanOpinionScore(rating: listeningRating / Self.scaleFactor) }
}
