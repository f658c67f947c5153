// SPDX-License-Identifier: Apache-2.0
/// The call's own estimate of how the stream it receives sounds: the wideband E-model (ITU-T
/// G.107.1, `WidebandEModel`) fed with what the call measured — mouth-to-ear delay (half the
/// RTCP round trip, the far end's framing, our jitter buffer and device), the share of the far
/// end's talk missed (the jitter buffer's concealment while it talked: lost and late packets
/// FEC did not rebuild, waits for overtaken ones; not losses in its silence), how bursty the
/// misses were (G.107's BurstR from RFC 3611 burst tracking), and Opus's impairment at the
/// bitrate it talks at and its FEC plan (`CodecImpairment.opus(bitsPerSecond:fecPlannedLossPercent:)`).
///
/// MOS values are on G.107's 1–4.5 scale, reached from the wideband rating by R_WB / 1.29, and
/// comparable with PESQ-WB (P.862.2) MOS-LQO, from which the Opus factors were derived: a clean
/// call at 24 kb/s listens at 3.80 (`listeningMeanOpinionScore`) and at the default 32 kb/s at
/// 4.03–4.06, as PESQ-WB scores libopus alone on the project's fixtures (3.80 and 4.06), and
/// its conversational MOS at 24 kb/s is about 3.7 at 100 ms
/// mouth-to-ear (talker and listener echo at G.107's TELR 65 dB, absolute delay). That is not
/// the 4.3–4.4 a narrowband G.107 calculation with G.113's planning values would print for a
/// good call: this scale is the one the call's PESQ-WB score is on.
public struct CallQualityEstimate: Sendable, Equatable {
    /// The wideband transmission rating R_WB (up to 129).
    public var widebandRating: Double
    /// R on G.107's 0–100 scale (R_WB / 1.29): RTCP XR's R factor.
    public var rating: Double
    /// The conversational MOS (delay included; RTCP XR's MOS-CQ), 1–4.5.
    public var meanOpinionScore: Double
    /// The listening MOS (delay excluded; RTCP XR's MOS-LQ), 1–4.5: the figure to set beside
    /// a PESQ-WB score of the same audio (PESQ knows nothing of delay).
    public var listeningMeanOpinionScore: Double
    /// The mouth-to-ear delay assumed, ms.
    public var mouthToEarDelayMs: Double
    /// The share of the far end's talk missed, percent (G.107's Ppl).
    public var effectiveLossPercent: Double
    /// G.107's burst ratio of the misses as measured (1: random); the rating weighs it only for
    /// a codec that `CodecImpairment.weighsBursts`.
    public var burstRatio: Double
    /// The codec impairment used (Ie,WB, Bpl,WB).
    public var codecImpairment: CodecImpairment

    /// The estimate for `inputs` with the last RTCP round trip (nil: not measured yet, counted
    /// as 0).
    init(inputs: VoIPMetricsInputs, roundTripTimeSeconds: Double?) {
        let delay = inputs.mouthToEarDelayMs(roundTripTimeSeconds: roundTripTimeSeconds)
        let codec = inputs.codecImpairment
        var model = WidebandEModel(mouthToEarMs: delay, codec: codec, lossPercent: inputs.effectiveLossPercent)
        model.burstRatio = codec.weighsBursts ? inputs.burstRatio : 1
        widebandRating = model.rating
        rating = model.narrowbandScaleRating
        meanOpinionScore = model.meanOpinionScore
        listeningMeanOpinionScore = model.listeningMeanOpinionScore
        mouthToEarDelayMs = delay
        effectiveLossPercent = model.packetLossPercent
        burstRatio = inputs.burstRatio
        codecImpairment = codec
    }
}
