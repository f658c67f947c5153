// SPDX-License-Identifier: Apache-2.0
/// The closed loop from the far end's reported loss to our encoder (the static-FEC mistake
/// avoided): on a clean network Opus spends nothing on in-band FEC; when the far end reports
/// loss, the encoder plans FEC for it.
///
/// Each RTCP report's fraction lost (RFC 3550 §6.4.1) sets the plan, in percent — and so does
/// its interarrival jitter: above one packet interval, packets overtake each other, and a
/// receiver that rebuilds an overtaken packet from the next one's FEC (ours does, NetEq does)
/// loses those packets without it, while RTCP counts them as received; such a report asks for
/// at least `reorderingPercent`.
///
/// A plan is 0 or at least `minimumPercent`: libopus 1.3.1 at 24 kb/s codes no in-band FEC at
/// all for a planned loss of 1–5 % (measured by `benchmarks quality` and from C at every
/// bitrate: FEC appears at 6 %), yet such a plan still costs about 0.1 PESQ-WB on a clean link
/// — so a plan below 6 % bought nothing, and the 5 % reordering plan (classes B–D) sent no
/// FEC. Loss under `lossIgnoredBelowPercent` plans none: there concealment costs less than
/// FEC does (class A: 3.13 without FEC, 2.98 with a 10 % plan). The plan rises at
/// once to a report above it (loss costs speech now, and reports come only every ~5 s), and
/// falls only after two reports in a row below half of it, to the last one — so a loss rate
/// that wobbles around the plan does not make the encoder flap. The plan is what Opus's
/// `OPUS_SET_PACKET_LOSS_PERC` takes (libopus adds in-band FEC in proportion to it); at 0 the
/// encoder's in-band FEC is switched off altogether. A pure value: the network side feeds it
/// reports, the audio side applies `plannedLossPercent` to its encoder.
struct LossAdaptation: Sendable, Equatable {
    /// Reports in a row below half the plan before the plan falls.
    static let reportsBeforeLowering = 2
    /// The most loss planned for, in percent: FEC beyond it costs more than it rebuilds
    /// (`benchmarks quality`, bursty class C at 9 % loss: plans of 11–12 % scored 1.90 PESQ-WB,
    /// capped at 10 % 2.00; no other class moved by more than 0.01).
    static let maximumPercent = 10
    /// The plan while the reported jitter exceeds `reorderingJitterShare` of a packet
    /// interval, in percent.
    static let reorderingPercent = 6
    /// The share of a packet interval the reported jitter must exceed for the reordering plan.
    static let reorderingJitterShare = 0.5
    /// The smallest plan that makes libopus code FEC (at the default 24 kb/s), in percent.
    static let minimumPercent = 6
    /// Reported loss below this plans no FEC, in percent.
    static let lossIgnoredBelowPercent = 3

    /// The loss the encoder plans FEC for, in percent.
    private(set) var plannedLossPercent: Int
    private var reportsBelow = 0

    /// A loop starting at `initialPercent`.
    init(initialPercent: Int = 0) {
        plannedLossPercent = min(max(initialPercent, 0), Self.maximumPercent)
    }

    /// Takes one report's fraction lost (0…1) and interarrival jitter, with the packet
    /// interval in ms; returns whether the plan changed.
    mutating func report(fractionLost: Double, jitterMs: Double = 0, packetIntervalMs: Double = 20) -> Bool {
        let loss = fractionLost.isFinite ? min(max(fractionLost, 0), 1) : 0
        // Any loss at all gets some FEC: rounded up.
        var reported = min(Self.maximumPercent, Int((loss * 100).rounded(.up)))
        reported = reported < Self.lossIgnoredBelowPercent ? 0 : max(reported, Self.minimumPercent)
        if jitterMs.isFinite, jitterMs > packetIntervalMs * Self.reorderingJitterShare { reported = max(reported, Self.reorderingPercent) }
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
}
