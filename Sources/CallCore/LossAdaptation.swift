// SPDX-License-Identifier: Apache-2.0
/// The closed loop from the far end's reported loss to our encoder (the static-FEC mistake
/// avoided): on a clean network Opus spends nothing on in-band FEC; when the far end reports
/// loss, the encoder plans FEC for it.
///
/// Each RTCP report's fraction lost (RFC 3550 §6.4.1) sets the plan, in percent. Jitter does
/// not: the jitter buffer's target is priced by the E-model and waits for packets that
/// overtake each other, so FEC for reordering alone paid for packets the buffer had anyway —
/// at 32 kb/s on `benchmarks quality`, planning 6 % whenever the reported jitter exceeded half
/// a packet interval cost G.1050 B 0.42 and C 0.27 PESQ-WB against no FEC (FEC takes libopus
/// to SILK or hybrid coding: 0.73 on a clean link at 10 %).
///
/// Any reported loss plans FEC, rounded up and at least the smallest plan libopus codes FEC
/// for at the bitrate sent (`minimumPercent(bitsPerSecond:)`): at the default 32 kb/s that is
/// 2 %, where FEC costs 8.6 Ie,WB against 16.6 at 6 % (`CodecImpairment`) — measured on
/// `benchmarks quality`: the classes' mean 3.430 (E 3.56, F 3.19), against 3.410 ignoring loss
/// of 1 % or less, and with a 6 % minimum 3.328 (any loss) and 3.331 (above 1 %; E 3.26, F
/// 2.88) — those two in runs before the 32 kb/s E-model factors, which alone moved the no-FEC
/// plan's mean by +0.04 (the jitter buffer prices late packets by them). The
/// plan rises at once to a report above it (loss costs speech now, and reports come only every
/// ~5 s), and falls only after two reports in a row below half of it, to the last one — so a
/// loss rate that wobbles around the plan does not make the encoder flap. The plan is what
/// Opus's `OPUS_SET_PACKET_LOSS_PERC` takes (libopus adds in-band FEC in proportion to it); at
/// 0 the encoder's in-band FEC is switched off altogether. A pure value: the network side
/// feeds it reports, the audio side applies `plannedLossPercent` to its encoder.
///
/// Until the far end's reports have covered enough of our stream (`reportsRule`: the first
/// comes 1.25–3.75 s into the call, RFC 3550's first interval, the next ~5 s later), the far
/// end's stream on its way to us stands in for them (`planForInboundLoss`): its loss
/// (`InboundLossEvidence`) — a path that loses theirs likely loses ours, and without it the
/// call's first words went unprotected — or its jitter (`InboundJitterEvidence`): a buffer still
/// learning such a path plays packets late, and FEC rebuilds them. It plans the smallest plan
/// coded, only while nothing is planned; reports lower it as any plan is lowered.
/// `benchmarks quality`, the call's first pass, same session: C 3.14 → 3.22, D 2.46 → 2.82,
/// F 1.77 → 2.25, bursty C 2.09 → 2.32, clean and A unchanged; `voicecall demo --fast` on its
/// default network, Alice → Bob (who speaks first) 2.77 → 2.93 PESQ-WB over 16 seeds; a clean
/// call never plans it (docs/performance.md, Call quality, stop 53).
struct LossAdaptation: Sendable, Equatable {
    /// Reports in a row below half the plan before the plan falls.
    static let reportsBeforeLowering = 2
    /// The most loss planned for, in percent: FEC beyond it costs more than it rebuilds
    /// (`benchmarks quality`, bursty class C at 9 % loss: plans of 11–12 % scored 1.90 PESQ-WB,
    /// capped at 10 % 2.00; no other class moved by more than 0.01).
    static let maximumPercent = 10
    /// The bitrate from which libopus 1.3.1 codes in-band FEC at full band for any planned loss
    /// (its `decide_fec`: FEC when the rate exceeds 23 kb/s × (125 − planned %) / 100, 28.5 kb/s
    /// at 1 %); below it a plan of 5 % or less codes no FEC at all, yet costs ~0.1 PESQ-WB (at
    /// 24 kb/s: 2.5–3.9 Ie,WB for nothing), and 6 % makes the encoder drop a band to fit FEC.
    static let fullbandFECBitsPerSecond = 28_600

    /// The smallest plan, in percent, that makes libopus code FEC at `bitsPerSecond`: 2 from
    /// `fullbandFECBitsPerSecond`, 6 below it.
    static func minimumPercent(bitsPerSecond: Int) -> Int { bitsPerSecond >= fullbandFECBitsPerSecond ? 2 : 6 }

    /// The loss the encoder plans FEC for, in percent.
    private(set) var plannedLossPercent: Int
    /// About how many of our packets the far end's reports have covered (the packets we had
    /// sent by the latest).
    private(set) var packetsReported = 0
    private var reportsBelow = 0

    /// How many of our packets the far end's reports must have covered before they alone set
    /// the plan: until then a report of no loss says little — at 2 % loss, 150 packets pass
    /// without one 5 % of the time, the 65 of a first report at 1.3 s a quarter of the time — and
    /// the far end's stream's own loss still stands in (`planForInboundLoss`). Ruling from the
    /// first report, a call whose first report came early and clean went unprotected until the
    /// second, 5 s later (the demo's seed 14: Alice's first four losses concealed).
    static let packetsBeforeReportsRule = 150

    /// Whether the far end's reports alone set the plan (they have covered
    /// `packetsBeforeReportsRule` of our packets).
    var reportsRule: Bool { packetsReported >= Self.packetsBeforeReportsRule }

    /// A loop starting at `initialPercent`.
    init(initialPercent: Int = 0) {
        plannedLossPercent = min(max(initialPercent, 0), Self.maximumPercent)
    }

    /// Takes one report's fraction lost (0…1), with the bitrate the encoder sends at (b/s) and
    /// the packets we had sent when it came; returns
    /// whether the plan changed.
    mutating func report(fractionLost: Double, bitsPerSecond: Int, packetsSent: Int) -> Bool {
        packetsReported = max(packetsReported, packetsSent)
        let loss = fractionLost.isFinite ? min(max(fractionLost, 0), 1) : 0
        // Rounded up: 0.4 % of loss is planned as 1 %, then raised to the smallest plan coded.
        var reported = min(Self.maximumPercent, Int((loss * 100).rounded(.up)))
        if reported > 0 { reported = max(reported, Self.minimumPercent(bitsPerSecond: bitsPerSecond)) }
        if reported > plannedLossPercent {
            plannedLossPercent = reported
            reportsBelow = 0
            return true
        }
        guard Double(reported) < Double(plannedLossPercent) / 2 else {
            reportsBelow = 0
            return false
        }
        reportsBelow += 1
        guard reportsBelow >= Self.reportsBeforeLowering else { return false }
        plannedLossPercent = reported
        reportsBelow = 0
        return true
    }

    /// The far end's stream lost packets on its way to us (`InboundLossEvidence`) or came with
    /// a late path's jitter (`InboundJitterEvidence`) before its reports rule (`reportsRule`):
    /// plans the smallest plan libopus codes at `bitsPerSecond`, if nothing is planned yet;
    /// returns whether the plan changed.
    mutating func planForInboundLoss(bitsPerSecond: Int) -> Bool {
        guard !reportsRule, plannedLossPercent == 0 else { return false }
        plannedLossPercent = Self.minimumPercent(bitsPerSecond: bitsPerSecond)
        return true
    }
}
