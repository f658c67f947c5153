// SPDX-License-Identifier: Apache-2.0
/// The closed loop from the far end's reports of congestion to our encoder's bitrate, within
/// the negotiated range: from `maximumBitrate` (our configured bitrate, capped by the peer's
/// `maxaveragebitrate`) down to `minimumBitrate` and back.
///
/// Congestion is loss with a queue behind it: a report counts as congested when it says at
/// least `congestionLoss` was lost **and** the round-trip time stands `queueingDelayMs` above
/// the path's baseline or the far end's jitter `queueingJitterMs` above its baseline. Loss
/// without a growing queue (a radio link, a flaky hop) is not ours to cure by sending less —
/// that is in-band FEC's job (`LossAdaptation`) — and lowering the bitrate then would only
/// cost speech. So on a clean network, and on a lossy one that is not congested, the bitrate
/// stays at `maximumBitrate`.
///
/// The hysteresis of `LossAdaptation`, turned round for a quantity we lower in trouble: the
/// bitrate falls only after `reportsBeforeLowering` congested reports in a row (one bad
/// report in ~5 s is not sustained loss), by `decreaseFactor` per congested report from then
/// on; it rises only after `reportsBeforeRaising` reports in a row without a queue, by a
/// fixed step (a quarter of the range) per such report from then on — so it comes back in
/// about half a minute, and a report in between (a queue without loss) holds it. A loss rate
/// that wobbles cannot make it flap: each direction needs two reports in a row.
///
/// Baselines: the lowest round-trip time and jitter seen, each moving an eighth of the way up
/// towards the value of every report without loss, so a path that got longer (a new route)
/// stops looking queued within about a minute, while a queue that comes with loss does not
/// lift its own baseline. An unknown round-trip time (no LSR/DLSR yet) or jitter that is not
/// finite says nothing.
///
/// A pure value: the network side feeds it reports, the audio side applies `targetBitrate`
/// to its encoder (`OPUS_SET_BITRATE`).
struct BitrateAdaptation: Sendable, Equatable {
    /// Congested reports in a row before the bitrate falls.
    static let reportsBeforeLowering = 2
    /// Reports in a row without a queue before the bitrate rises.
    static let reportsBeforeRaising = 2
    /// The fraction lost (0…1) that, with a growing queue, is congestion: 2 %, above the
    /// odd packet a clean path loses.
    static let congestionLoss = 0.02
    /// A round-trip time this far above the baseline is a queue building, in ms (a 24 kb/s
    /// stream's own packets move it by well under a millisecond).
    static let queueingDelayMs = 30.0
    /// Jitter this far above the baseline is a queue building, in ms.
    static let queueingJitterMs = 10.0
    /// The bitrate is multiplied by this per congested report once lowering.
    static let decreaseFactor = 0.85
    /// Rising steps from the floor back to the ceiling.
    static let raiseSteps = 4
    /// The share of the way up a baseline moves on a report without loss.
    static let baselineRise = 0.125

    /// The most the bitrate is raised to, in bits per second.
    let maximumBitrate: Int
    /// The least the bitrate is lowered to, in bits per second (at most `maximumBitrate`).
    let minimumBitrate: Int
    /// The bitrate the encoder should target, in bits per second.
    private(set) var targetBitrate: Int
    private var baselineRoundTripMs: Double?
    private var baselineJitterMs: Double?
    private var congestedReports = 0
    private var clearReports = 0

    /// A loop starting at `maximumBitrate`, lowering to `minimumBitrate` at most (or to
    /// `maximumBitrate`, when the floor is above it).
    init(maximumBitrate: Int, minimumBitrate: Int) {
        self.maximumBitrate = maximumBitrate
        self.minimumBitrate = min(minimumBitrate, maximumBitrate)
        targetBitrate = maximumBitrate
    }

    /// The raise per clear report once rising, in bits per second.
    var raiseStep: Int { max(500, (maximumBitrate - minimumBitrate) / Self.raiseSteps) }

    /// Takes one report's fraction lost (0…1), the far end's interarrival jitter and the
    /// round-trip time (nil while unknown), both in ms; returns whether `targetBitrate` moved.
    mutating func report(fractionLost: Double, jitterMs: Double, roundTripTimeMs: Double?) -> Bool {
        let loss = fractionLost.isFinite ? min(max(fractionLost, 0), 1) : 0
        let lossy = loss >= Self.congestionLoss
        let delayExcess = Self.excess(roundTripTimeMs, over: &baselineRoundTripMs, rising: !lossy)
        let jitterExcess = Self.excess(jitterMs, over: &baselineJitterMs, rising: !lossy)
        let queueing = delayExcess >= Self.queueingDelayMs || jitterExcess >= Self.queueingJitterMs
        if lossy && queueing {
            clearReports = 0
            congestedReports += 1
            guard congestedReports >= Self.reportsBeforeLowering else { return false }
            return move(to: max(minimumBitrate, Int(Double(targetBitrate) * Self.decreaseFactor)))
        }
        congestedReports = 0
        guard !queueing else {
            clearReports = 0
            return false
        }
        clearReports += 1
        guard clearReports >= Self.reportsBeforeRaising else { return false }
        return move(to: min(maximumBitrate, targetBitrate + raiseStep))
    }

    private mutating func move(to bitrate: Int) -> Bool {
        guard bitrate != targetBitrate else { return false }
        targetBitrate = bitrate
        return true
    }

    /// How far `value` stands above `baseline` (0 when unknown or below it, which becomes
    /// the new baseline); the baseline follows it an eighth of the way up when `rising`.
    private static func excess(_ value: Double?, over baseline: inout Double?, rising: Bool) -> Double {
        guard let value, value.isFinite, value >= 0, value < 1e9 else { return 0 }
        guard let current = baseline, value > current else {
            baseline = value
            return 0
        }
        if rising { baseline = current + (value - current) * baselineRise }
        return value - current
    }
}
