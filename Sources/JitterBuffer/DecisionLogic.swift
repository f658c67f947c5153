// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Opus

/// Decides, for the audio playout needs next, which operation produces it (the role of WebRTC
/// NetEq's `DecisionLogic`): a pure function of the buffer's state, so every rule can be tested
/// without a decoder.
///
/// - **normal**: the next packet is there → decode it;
/// - **merge**: the same right after concealment (libopus joins it to its concealment);
/// - **fecRecovery**: it is missing but the packet after it carries in-band FEC → rebuild it
///   (at once, or after waiting for it: `LatePacketPolicy`); the last packet of a lost burst
///   too, after the others were concealed, moving on or waiting in place;
/// - **expand**: missing otherwise → Opus concealment. With nothing later stored (a stall)
///   playout waits in place, so the delay grows to the network's. With later packets stored,
///   the missing one is usually only overtaken (reordered), so playout also waits for it — up
///   to `maximumHoldMs`, and only while its lateness is within what `holdQuantile` of recent
///   packets reached — then gives it up (FEC from the next packet, or concealment). Under the
///   default FEC-first policy it waits only while playout sits below its target: there the
///   wait raises the delay toward where it should be anyway, while above it each wait is a
///   frame of concealment the listener hears plus delay to be taken out again;
/// - **comfortNoise**: the sequence continues but the timestamp jumped (sender DTX), or the
///   last packet was a DTX packet and nothing follows yet → the decoder's comfort noise;
/// - **accelerate** / **preemptiveExpand**: when decoding, the packet's margin (how long ago
///   the fastest-path copy of it would have arrived) is compared with the lowest margin (on
///   frame ticks the target delay less `targetToleranceMs`; on a finer lattice a band that
///   widens with the target, `fineLatticeBandShare` and `jitterTickMs`; on either, at least
///   `lossMarginMs` after a loss):
///   a tick and the hysteresis above → remove a pitch period, below → insert one. Either
///   waits for a quiet frame (`StretchUrgency.whenQuiet`) unless the margin is
///   `urgentAccelerateFrames` above or under the least margin (`minimumMarginMs`,
///   `fineLatticeMinimumMarginMs`: the next packet about to miss its turn), or the policy
///   waits for packets (its waits must be paid back at once).
struct DecisionLogic {
    /// How far below the target the margin may sit before a period is inserted, in ms, when
    /// playout runs a frame per tick. The margin moves in whole ticks (a packet is decoded at a
    /// tick), so it sits on a 20 ms lattice: insisting on the lattice point above the target
    /// would cost 10 ms on average, and the few packets this tolerance makes late are mostly
    /// waited for. On a finer lattice (a device period per tick, `nextSamples`) the point above
    /// costs half as much and the margin keeps the whole target and more: up to this much above
    /// it as the target grows (`fineLatticeBandShare`).
    static let targetToleranceMs = 5.0
    /// The margin never sits below this, in ms: on a clean network whose clock drifts, inserting
    /// periods raises the margin only once a whole frame has built up (several ticks), so
    /// preemptive expand needs this much runway before the next packet would be missed.
    static let minimumMarginMs = 5.0
    /// The least margin on a lattice finer than the frame (a device period per tick), in ms.
    /// There preemptive expand wins a tick of runway as soon as what it inserted covers the
    /// next tick, and a decode waits for a whole period whenever the packet's fastest copy came
    /// less than this before the tick — on a clean link, a share of the calls as large as this
    /// is of the period: 2 ms, against 5 (`voicecall latency`, 4 phases: 47.6 → 45.0 ms without
    /// voice processing; `benchmarks listening --tick-ms 10` the same to the digit, where it
    /// never binds).
    static let fineLatticeMinimumMarginMs = 2.0
    /// Extra margin above the lowest allowed one plus a tick before accelerating (stepping the
    /// margin down by a tick): without it, noise in the fastest-packet estimate flips between
    /// accelerate and preemptive expand.
    static let accelerateHysteresisMs = 5.0
    /// On a lattice finer than the frame (a device period per tick), the share of the target
    /// beyond one tick by which the margin band widens: the lowest margin rises above the target
    /// by up to `targetToleranceMs`, accelerating waits for up to a frame (not a tick) above
    /// it, and the hysteresis (`accelerateHysteresisMs`) shrinks toward
    /// `minimumAccelerateHysteresisMs` as the target does. The fastest-packet estimate is as
    /// noisy as the link is jittery, and a band as narrow as the tick made a jittery call
    /// stretch two to five times as often as frame ticks did; a steady link (a target within a
    /// tick: arrivals counted at the ticks spread by up to one on any link) keeps the narrow band
    /// and the lowest lattice point. 0.5, against 0 and 0.25 (`benchmarks listening
    /// --arrivals-at-ticks --tick-ms 10`, docs/performance.md, "Played a device period at a time").
    static let fineLatticeBandShare = 0.5
    /// The least accelerate hysteresis on a fine lattice (a steady link's), in ms.
    static let minimumAccelerateHysteresisMs = 1.0
    /// How long a lost packet keeps the margin at `lossMarginMs(tickMs:)`, in ms.
    static let lossMemoryMs = 20_000.0
    /// Most pitch periods removed from one frame when the margin is several frames above target.
    static let fastAcceleratePeriods = 3
    /// Steps of `hurryStepMs` above the lowest margin (plus the hysteresis) from which
    /// accelerating cannot wait for a pause: 120 ms of extra delay (at 10 or 20 ms frames) is
    /// worse to hear than a hurried syllable.
    static let urgentAccelerateFrames = 6
    /// Longest wait for a missing packet while later ones are stored, in ms.
    static let maximumHoldMs = 80.0
    /// A missing packet is waited for only while its lateness so far is within this quantile
    /// of recent relative delays; beyond it, it is most likely lost.
    static let holdQuantile = 0.999

    /// Samples per playout tick.
    let samplesPerFrame: Int
    /// Samples per millisecond.
    let samplesPerMs: Double
    /// Duration of a tick in ms.
    let frameMs: Double
    /// The step, in ms, in which how far above target playout is counts for hurrying: a frame,
    /// but never under 20 ms, so a 10 ms call hurries (stretches mid-word, removes more than a
    /// period, drops a stall's backlog) only where a 20 ms call does. Counted in its own
    /// frames, a 10 ms call hurried from 60 ms above the lowest margin and came down from its
    /// initial delay through the first words (`benchmarks listening --ptime 10`, clean: 3.57
    /// against libopus's 3.61 on 10 ms ticks, 3.46 on 5 ms ticks; 3.61 and 3.59 now).
    let hurryStepMs: Double
    /// The longest span FEC can rebuild (the longest Opus packet), in samples.
    let maximumPacketSamples: Int
    /// The shortest Opus frame (2.5 ms) in samples: FEC and concealment work in its multiples.
    let opusStepSamples: Int
    /// The longest pitch period a time-stretch removes: audio queued beyond a quarter of it is
    /// worth trimming.
    let maximumPitchPeriod: Int
    /// What to do about a missing packet when a later one carries FEC for it.
    let latePacketPolicy: LatePacketPolicy
    /// Whether accelerate and preemptive expand may be chosen.
    let allowsTimeStretching: Bool

    /// A decision logic for `configuration`; `maximumPitchPeriod` is the time-stretcher's.
    init(configuration: JitterBufferConfiguration, maximumPitchPeriod: Int) {
        let rate = configuration.sampleRate
        samplesPerFrame = rate * configuration.frameDurationMs / 1_000
        samplesPerMs = Double(rate) / 1_000
        frameMs = Double(configuration.frameDurationMs)
        hurryStepMs = max(frameMs, 20)
        maximumPacketSamples = rate * 120 / 1_000
        opusStepSamples = rate / 400
        self.maximumPitchPeriod = maximumPitchPeriod
        latePacketPolicy = configuration.latePacketPolicy
        allowsTimeStretching = configuration.allowsTimeStretching
    }

    /// What a decision looks at.
    struct Input {
        /// Playout position and recent history.
        var state: PlayoutState
        /// The stored packet with the lowest sequence number at or after `state.nextSequence`.
        var next: PacketStore.Slot?
        /// The receiver's clock.
        var nowMs: Double
        /// Arrival minus media time of the fastest recent packet (`RelativeDelayEstimator`), in ms.
        var fastestOffsetMs: Double
        /// The current target delay.
        var targetDelayMs: Double
        /// Samples produced earlier and not yet emitted.
        var queuedSamples: Int
        /// Samples this tick emits: a frame, or a device period when playout runs finer. A packet
        /// is decoded only at a tick, so the margin at decoding moves on this lattice.
        var tickSamples: Int
        /// Whether this is the tick's first production (only the first may accelerate by a frame).
        var isFirstThisTick: Bool
        /// Whether a packet was lost within `lossMemoryMs` (playout then keeps `lossMarginMs`).
        var lossIsRecent = false
    }

    /// How long ago the fastest-path copy of the sample at `timestamp` would have arrived: the
    /// slack its decode has. Late loss happens for packets whose relative delay exceeds it.
    func marginMs(timestamp: Int64, nowMs: Double, fastestOffsetMs: Double) -> Double {
        nowMs - Double(timestamp) / samplesPerMs - fastestOffsetMs
    }

    /// The smallest margin playout keeps: on frame ticks the target less the tolerance (at
    /// least `lossMarginMs` while a loss is recent); on a finer lattice the target (at least
    /// `lossMarginMs` while a loss is recent) plus its share
    /// of the band's widening (`fineLatticeBandShare`) and, on a jittery link, up to a tick more
    /// (`jitterTickMs`); never under the minimum (`minimumMarginMs`; on a finer lattice
    /// `fineLatticeMinimumMarginMs`).
    func lowestMarginMs(targetDelayMs: Double, tickMs: Double? = nil, lossIsRecent: Bool = false) -> Double {
        guard let tickMs, tickMs < frameMs else {
            let lossFloor = lossIsRecent && tickMs != nil ? lossMarginMs(tickMs: frameMs) : 0
            return max(targetDelayMs - Self.targetToleranceMs, Self.minimumMarginMs, lossFloor)
        }
        let target = fineLatticeTargetMs(targetDelayMs: targetDelayMs, tickMs: tickMs, lossIsRecent: lossIsRecent)
        return max(target + min(Self.targetToleranceMs, bandWideningMs(target: target, tickMs: tickMs))
                   + jitterTickMs(targetDelayMs: targetDelayMs, tickMs: tickMs), Self.fineLatticeMinimumMarginMs)
    }

    /// The margin from which a period is removed (stepping the margin down by a tick): the lowest
    /// margin plus a tick and the hysteresis; on a finer lattice also its share of the band's
    /// widening (up to the rest of a frame), and a hysteresis that narrows with the target.
    func accelerateMarginMs(targetDelayMs: Double, tickMs: Double, lossIsRecent: Bool = false) -> Double {
        let lowest = lowestMarginMs(targetDelayMs: targetDelayMs, tickMs: tickMs, lossIsRecent: lossIsRecent)
        guard tickMs < frameMs else { return lowest + tickMs + Self.accelerateHysteresisMs }
        let widening = bandWideningMs(target: fineLatticeTargetMs(targetDelayMs: targetDelayMs, tickMs: tickMs, lossIsRecent: lossIsRecent),
                                      tickMs: tickMs)
        let hysteresis = min(Self.accelerateHysteresisMs, max(Self.minimumAccelerateHysteresisMs, widening))
        return lowest + tickMs + min(frameMs - tickMs, widening) + hysteresis
    }

    /// The margin at which the packet after a lost one is stored when the lost one falls due:
    /// there FEC rebuilds the loss and concealment merges into the next packet. On a fine
    /// lattice a frame after it, less the tick the decode may wait anyway, plus the minimum (on
    /// the lossy rows of `benchmarks listening` 10 ms ticks at the lowest lattice point scored
    /// 0.03–0.08 under frame ticks; with this margin from 0.02 under to 0.02 above). A frame at a
    /// time, a frame plus the minimum: a margin under a frame never had the next packet in time
    /// (`benchmarks listening --tick-ms 20`, 6 seeds: 3 % random 2.75 → 2.82, 5 % bursty 2.62
    /// → 2.72, 10 % bursty 1.81 → 1.99 for 18 ms more delay, Wi-Fi 2.92 → 2.94, the rest the
    /// same to the digit).
    func lossMarginMs(tickMs: Double) -> Double {
        tickMs < frameMs ? frameMs - tickMs + Self.minimumMarginMs : frameMs + Self.minimumMarginMs
    }

    private func fineLatticeTargetMs(targetDelayMs: Double, tickMs: Double, lossIsRecent: Bool) -> Double {
        lossIsRecent ? max(targetDelayMs, lossMarginMs(tickMs: tickMs)) : targetDelayMs
    }

    /// On a fine lattice, the tick a jittery link's lowest margin keeps above its target: the
    /// target's excess over a tick, up to a tick. There a packet is counted at its arrival from
    /// the network (`CallMedia.render`), where it used to be counted at the tick that took it
    /// in; the target, a quantile of the relative delays, then sits up to a tick lower for the
    /// same packets, and the listener preferred the delay the tick had bought
    /// (`benchmarks listening --tick-ms 10`, 14 seeds, PESQ against none: G.1050 A +0.07,
    /// B +0.06, F +0.03, 40 ms jitter +0.03, E and Wi-Fi +0.02, C and D +0.01 for 9–14 ms
    /// more delay; half a tick bought half as much). The steady and loss-only rows, whose
    /// target is within a tick, are not touched: counted at arrival they play 10 ms sooner.
    func jitterTickMs(targetDelayMs: Double, tickMs: Double) -> Double {
        min(tickMs, max(0, targetDelayMs - tickMs))
    }

    private func bandWideningMs(target: Double, tickMs: Double) -> Double {
        Self.fineLatticeBandShare * max(0, target - tickMs)
    }

    /// Whether playout may begin: the first packet has waited the target (less the tolerance).
    func startsPlayout(nextTimestamp: Int64, nowMs: Double, fastestOffsetMs: Double, targetDelayMs: Double) -> Bool {
        marginMs(timestamp: nextTimestamp, nowMs: nowMs, fastestOffsetMs: fastestOffsetMs) >= lowestMarginMs(targetDelayMs: targetDelayMs)
    }

    /// The decision for the next production. `holdLimitMs` gives the relative delay that
    /// `holdQuantile` of recent packets stayed within; it is asked only when a missing packet
    /// might be waited for (it scans the delay histogram).
    func decide(_ input: Input, holdLimitMs: () -> Double) -> PlayoutDecision {
        var state = input.state
        guard let next = input.next else {
            // Nothing to play: the sender is silent (DTX), or a stall — wait, concealing.
            return PlayoutDecision(operation: state.isInDTX ? .comfortNoise(sampleCount: samplesPerFrame, advancing: false)
                                                            : .expand(.waiting))
        }
        if next.sequence == state.nextSequence {
            var realignment = PlayoutDecision.Realignment.none
            var gap = Int(next.timestamp - state.nextTimestamp)
            if gap > 0 && state.waitedSamples > 0 {
                // The sequence goes on but the timestamp jumped: the sender was silent (DTX), and
                // what was played while waiting stood for the start of that silence.
                realignment = .creditWaitedSamples(min(gap, state.waitedSamples))
                state.apply(realignment)
                gap = Int(next.timestamp - state.nextTimestamp)
            }
            if gap > 0 && state.expandedSamples == 0 {
                // Sender DTX: silence, not loss.
                return PlayoutDecision(realignment: realignment,
                                       operation: .comfortNoise(sampleCount: min(gap, samplesPerFrame), advancing: true))
            }
            return PlayoutDecision(realignment: realignment, operation: decodeOperation(next, state: state, input: input))
        }
        // One or more packets missing before `next`.
        let gap = Int(next.timestamp - state.nextTimestamp)
        // What concealment has not yet stood for: a wait in place (nothing later was stored when
        // the span fell due) stands for the span's start, as a skip below credits it.
        let uncovered = gap - state.waitedSamples
        // The carrier's FEC stands for the span right before it: it rebuilds what is missing when
        // that span is all that is — one packet, or the last of a burst whose earlier packets
        // concealment has already covered, advancing or waiting (a receiver calling libopus does
        // the same: PLC for those, then the carrier's FEC; exact-frame concealment keeps the
        // decoder in step). On a link whose margin is under a frame, the packet after a loss is
        // not stored when the loss falls due, so playout waits: FEC then rebuilds the burst's
        // last packet as the fixed-delay oracle's does.
        let fecCoversTheRest = next.sequence == state.nextSequence + 1 || (state.expandedSamples > 0 && uncovered <= samplesPerFrame)
        let canRecoverFromFEC = next.hasFEC && fecCoversTheRest
            && uncovered > 0 && uncovered <= maximumPacketSamples && uncovered % opusStepSamples == 0
        let prefersFEC = canRecoverFromFEC && latePacketPolicy == .recoverFromFECFirst
        let dueMargin = marginMs(timestamp: state.nextTimestamp, nowMs: input.nowMs, fastestOffsetMs: input.fastestOffsetMs)
        let mayWait = latePacketPolicy == .waitForPacket || dueMargin < input.targetDelayMs
        if gap > 0 && !prefersFEC && mayWait && Double(state.waitedSamples) < Self.maximumHoldMs * samplesPerMs
            && dueMargin <= holdLimitMs() {
            return PlayoutDecision(operation: .expand(.waiting))  // most likely overtaken, not lost: wait for it
        }
        if gap <= 0 || state.waitedSamples >= gap {
            let realignment = PlayoutDecision.Realignment.skipMissingPackets(sequence: next.sequence, timestamp: next.timestamp)
            state.apply(realignment)
            return PlayoutDecision(realignment: realignment, operation: decodeOperation(next, state: state, input: input))
        }
        if canRecoverFromFEC {
            let realignment = state.waitedSamples > 0 ? PlayoutDecision.Realignment.creditWaitedSamples(state.waitedSamples) : .none
            return PlayoutDecision(realignment: realignment, operation: .fecRecovery(carrier: next, sampleCount: uncovered))
        }
        return PlayoutDecision(operation: .expand(.advancing(toward: next)))
    }

    /// How the packet due (`packet`, at `state`'s position) is played once decoded.
    private func decodeOperation(_ packet: PacketStore.Slot, state: PlayoutState, input: Input) -> PlayoutOperation {
        if packet.isComfortNoise { return .dtxComfortNoise(packet) }
        if state.expandedSamples > 0 && state.followsConcealment { return .merge(packet) }
        guard allowsTimeStretching else { return .normal(packet) }
        let margin = marginMs(timestamp: state.nextTimestamp, nowMs: input.nowMs, fastestOffsetMs: input.fastestOffsetMs)
        let tickMs = Double(input.tickSamples) / samplesPerMs
        let lowest = lowestMarginMs(targetDelayMs: input.targetDelayMs, tickMs: tickMs, lossIsRecent: input.lossIsRecent)
        let accelerateFrom = accelerateMarginMs(targetDelayMs: input.targetDelayMs, tickMs: tickMs, lossIsRecent: input.lossIsRecent)
        let queuedMs = Double(input.queuedSamples) / samplesPerMs
        if input.isFirstThisTick && margin >= accelerateFrom {
            // Far above target: remove a period even if that costs a frame of margin; far far
            // above (after a stall), up to `fastAcceleratePeriods` periods (NetEq's fast accelerate).
            var periods = 1
            while periods < Self.fastAcceleratePeriods && margin >= accelerateFrom + Double(periods) * hurryStepMs {
                periods += 1
            }
            let isUrgent = margin >= lowest + Double(Self.urgentAccelerateFrames) * hurryStepMs + Self.accelerateHysteresisMs
            return .accelerate(packet, .periods(periods), urgency(isUrgent))
        }
        if margin < lowest && queuedMs < frameMs {
            // Only a margin under the floor inserts a period mid-word: raising the delay toward a
            // target far above (the call's first seconds on a slow path: 60 → 300–500 ms) one
            // period per voiced frame stretched a tenth of the start's speech, which listeners
            // hear worse than the few packets a pause later plays late (`benchmarks quality`,
            // first pass, against inserting 10 ms below the lowest margin: B 2.78 → 3.21,
            // C 2.73 → 2.98, D 2.05 → 2.38, F 1.70 → 1.91; steady B −0.04, F +0.13).
            return .preemptiveExpand(packet, urgency(margin < (tickMs < frameMs ? Self.fineLatticeMinimumMarginMs : Self.minimumMarginMs)))
        }
        if margin >= lowest && input.queuedSamples >= maximumPitchPeriod / 4 {
            // Audio left over from earlier stretching is pure delay: trim it when a period fits.
            return .accelerate(packet, .queuedSamples(input.queuedSamples), urgency(false))
        }
        return .normal(packet)
    }

    /// The urgency of a stretch: at once when `isUrgent`, or always under the waiting policy
    /// (the delay its waits add must be paid back before the next wait), else in a pause.
    private func urgency(_ isUrgent: Bool) -> StretchUrgency {
        isUrgent || latePacketPolicy == .waitForPacket ? .now : .whenQuiet
    }
}

