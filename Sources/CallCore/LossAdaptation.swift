// SPDX-License-Identifier: Apache-2.0
/// The closed loop from the far end's reported loss to our encoder (the static-FEC mistake
/// avoided): on a clean network Opus spends nothing on in-band FEC; when the far end reports
/// loss, the encoder codes FEC.
///
/// Each RTCP report's fraction lost (RFC 3550 §6.4.1) decides whether FEC is coded. Jitter does
/// not: the jitter buffer's target is priced by the E-model and waits for packets that
/// overtake each other, so FEC for reordering alone paid for packets the buffer had anyway —
/// at 32 kb/s on `benchmarks quality`, planning 6 % whenever the reported jitter exceeded half
/// a packet interval cost G.1050 B 0.42 and C 0.27 PESQ-WB against no FEC (FEC takes libopus
/// to SILK or hybrid coding: 0.73 on a clean link at 10 %).
///
/// **The plan is the smallest plan libopus codes FEC for at the bitrate sent**
/// (`minimumPercent(bitsPerSecond:)`: 2 % at the default 32 kb/s, 6 % below 28.6 kb/s),
/// whatever the loss. The plan is what `OPUS_SET_PACKET_LOSS_PERC` takes: it switches FEC on
/// from the smallest plan, and above it buys a better copy of each frame and less prediction
/// from frame to frame, paid for in the primary coding every listener hears — more than the
/// better copy gives back. Fed the same losses, `voicecall demo --fast` (12 seeds, no jitter)
/// at 20 ms frames, a 2 % plan against the reported loss rounded up: 5 % bursty loss +0.08 /
/// +0.14 PESQ-WB (Alice → Bob / Bob → Alice), 5 % random +0.05 / +0.09, 10 % bursty −0.01 /
/// +0.06, 10 % random +0.00 / +0.03, with FEC rebuilding as many packets; at 10 ms frames
/// +0.18 / +0.16, +0.23 / +0.24, +0.12 / +0.13 and +0.24 / +0.21. `benchmarks quality`, 8
/// pairs a row: E 3.60 → 3.65, F 3.33 → 3.30, C bursty (9 % loss) 2.26 → 2.32, the rest
/// unchanged (docs/performance.md, Call quality, stop 58).
///
/// **Which loss warrants FEC depends on the frame** (`lossPercentWarrantingFEC`): any in
/// frames of 20 ms or longer, where FEC at 2 % loss pays (it costs a clean call ~0.25 PESQ-WB:
/// 4.11 → 3.87 on the Alice fixture, libopus alone); more than 3 % in shorter frames, where the
/// same plan costs a clean 10 ms call 0.9 (4.03 → 3.13 at 32 kb/s, libopus 1.3.1 alone, the
/// same hybrid mode and bandwidth with FEC and without; 0.28 of it the plan's loss-robust
/// prediction, FEC off). In 10 ms frames at 32 kb/s libopus codes FEC only while it codes below
/// full band: louder speech (the fixture ×4, or a call's AGC-raised voice) stays at full band
/// and carries none, and the plan still costs it 0.11. At 10 ms frames, FEC against none in
/// `voicecall demo --fast`: 2 % bursty loss −0.29 /
/// −0.36, 3 % −0.15 / −0.07, 4 % −0.05 / +0.13, 5 % +0.04 / +0.16; 2 % random −0.03 / 0.00, 3 %
/// +0.25 / +0.19, 5 % +0.41 / +0.54.
///
/// The plan rises at once to a report that warrants FEC (loss costs speech now, and reports
/// come only every ~5 s), and falls only after two reports in a row that do not — so a loss
/// rate that wobbles around the threshold does not make the encoder flap. At 0 the encoder's
/// in-band FEC is switched off altogether. A pure value: the network side feeds it reports, the
/// audio side applies `plannedLossPercent` to its encoder.
///
/// Until the far end's reports have covered enough of our stream (`reportsRule`: the first
/// comes 1.25–3.75 s into the call, RFC 3550's first interval, the next ~5 s later), the far
/// end's stream on its way to us stands in for them (`planForInboundEvidence`): its loss
/// (`InboundLossEvidence`) — a path that loses theirs likely loses ours, and without it the
/// call's first words went unprotected — or its jitter (`InboundJitterEvidence`): a buffer still
/// learning such a path plays packets late, and FEC rebuilds them. It plans the smallest plan
/// coded, only while nothing is planned; reports lower it as any plan is lowered.
/// `benchmarks quality`, the call's first pass, same session: C 3.14 → 3.22, D 2.46 → 2.82,
/// F 1.77 → 2.25, bursty C 2.09 → 2.32, clean and A unchanged; `voicecall demo --fast` on its
/// default network, Alice → Bob (who speaks first) 2.77 → 2.93 PESQ-WB over 16 seeds; a clean
/// call never plans it (docs/performance.md, Call quality, stop 53). In frames shorter than
/// 20 ms the stand-in is the far end's loss alone, and only a share of it that warrants FEC
/// there (`inboundLossFractionWarrantingFEC`).
package struct LossAdaptation: Sendable, Equatable {
    /// Reports in a row that do not warrant FEC before the plan falls.
    static let reportsBeforeLowering = 2
    /// The most loss an app's own plan (`MediaConfiguration.expectedPacketLossPercent`, the
    /// starting plan) is taken at, in percent: beyond it FEC costs more than it rebuilds
    /// (`benchmarks quality`, bursty class C at 9 % loss: plans of 11–12 % scored 1.90 PESQ-WB,
    /// 10 % 2.00, in a session before reports planned only the smallest plan).
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
    /// The call's frame duration, ms: which loss warrants FEC depends on it.
    let frameDurationMs: Int
    private var reportsBelow = 0

    /// How many of our packets the far end's reports must have covered before they alone set
    /// the plan: until then a report of no loss says little — at 2 % loss, 150 packets pass
    /// without one 5 % of the time, the 65 of a first report at 1.3 s a quarter of the time — and
    /// the far end's stream's own loss still stands in (`planForInboundEvidence`). Ruling from the
    /// first report, a call whose first report came early and clean went unprotected until the
    /// second, 5 s later (the demo's seed 14: Alice's first four losses concealed).
    static let packetsBeforeReportsRule = 150

    /// Whether the far end's reports alone set the plan (they have covered
    /// `packetsBeforeReportsRule` of our packets).
    var reportsRule: Bool { packetsReported >= Self.packetsBeforeReportsRule }

    /// The reported loss, in percent rounded up as `report` rounds it, from which FEC is coded in
    /// frames of `frameDurationMs`: 1 (any loss) at 20 ms and longer, 4 (more than 3 %) in
    /// shorter frames, where FEC costs the primary coding three to four times as much.
    static func lossPercentWarrantingFEC(frameDurationMs: Int) -> Int { frameDurationMs < 20 ? 4 : 1 }

    /// The plan, in percent, for a reported loss of `lossPercent` (rounded up) at
    /// `bitsPerSecond` in frames of `frameDurationMs`: the smallest plan libopus codes if that
    /// loss warrants FEC, else 0. What a steady report settles the plan at — and what a sender
    /// replayed in `benchmarks listening` plans for its trace's loss.
    package static func plan(forLossPercent lossPercent: Int, bitsPerSecond: Int, frameDurationMs: Int) -> Int {
        lossPercent >= lossPercentWarrantingFEC(frameDurationMs: frameDurationMs) ? minimumPercent(bitsPerSecond: bitsPerSecond) : 0
    }

    /// In frames shorter than 20 ms, the share of the far end's packets that must be missing on
    /// their way here, over at least `packetsBeforeInboundShareCounts` of them, before its loss
    /// stands in for reports: 4 %, a notch above what a report must show, since a second of
    /// bursty loss reads high. `voicecall demo --fast --ptime 10` (the first talker, Alice →
    /// Bob, paired against 3 %): the default network (2 % bursty) +0.022 PESQ-WB over 24 seeds,
    /// 6 % bursty loss −0.006 over 16; no stand-in at all +0.053 and −0.102; class C's jitter
    /// standing in as at 20 ms −0.085 on the default network.
    static let inboundLossFractionWarrantingFEC = 0.04
    /// The far end's packets expected before its loss share counts in frames shorter than 20 ms:
    /// a second of 10 ms packets (a burst of two in the first twenty is 10 %).
    static let packetsBeforeInboundShareCounts = 100

    /// A loop starting at `initialPercent`, for a call in frames of `frameDurationMs`.
    init(initialPercent: Int = 0, frameDurationMs: Int = 20) {
        plannedLossPercent = min(max(initialPercent, 0), Self.maximumPercent)
        self.frameDurationMs = frameDurationMs
    }

    /// Takes one report's fraction lost (0…1), with the bitrate the encoder sends at (b/s) and
    /// the packets we had sent when it came; returns whether the plan changed.
    mutating func report(fractionLost: Double, bitsPerSecond: Int, packetsSent: Int) -> Bool {
        packetsReported = max(packetsReported, packetsSent)
        let loss = fractionLost.isFinite ? min(max(fractionLost, 0), 1) : 0
        // Rounded up: 0.4 % of loss counts as 1 %.
        let reported = Int((loss * 100).rounded(.up))
        let wanted = Self.plan(forLossPercent: reported, bitsPerSecond: bitsPerSecond, frameDurationMs: frameDurationMs)
        if wanted > plannedLossPercent {
            plannedLossPercent = wanted
            reportsBelow = 0
            return true
        }
        guard wanted < plannedLossPercent else {
            reportsBelow = 0
            return false
        }
        reportsBelow += 1
        guard reportsBelow >= Self.reportsBeforeLowering else { return false }
        plannedLossPercent = wanted
        reportsBelow = 0
        return true
    }

    /// What the far end's stream shows on its way to us before its reports rule (`reportsRule`):
    /// `lossStands` (`InboundLossEvidence`) with `lost` of `expected` packets missing, or
    /// `showsLatePath` (`InboundJitterEvidence`). Plans the smallest plan libopus codes at
    /// `bitsPerSecond` if nothing is planned yet and the evidence warrants FEC in the call's
    /// frames (in frames shorter than 20 ms only a loss share of
    /// `inboundLossFractionWarrantingFEC`); returns whether the plan changed.
    mutating func planForInboundEvidence(lossStands: Bool, lost: Int, expected: Int, showsLatePath: Bool, bitsPerSecond: Int) -> Bool {
        guard !reportsRule, plannedLossPercent == 0 else { return false }
        let warranted = frameDurationMs < 20
            ? lossStands && expected >= Self.packetsBeforeInboundShareCounts
                && Double(lost) >= Self.inboundLossFractionWarrantingFEC * Double(expected)
            : lossStands || showsLatePath
        guard warranted else { return false }
        plannedLossPercent = Self.minimumPercent(bitsPerSecond: bitsPerSecond)
        return true
    }
}
