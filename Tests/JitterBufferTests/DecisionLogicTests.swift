// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import JitterBuffer

/// `DecisionLogic` on its own: given a buffer state, which operation it decides. 48 kHz, 20 ms
/// frames; the fastest packet's offset is 0, so a packet's margin is `now − timestamp / 48`.
/// The target is 60 ms, so the lowest margin kept is 55 ms and accelerate starts at 80 ms.
@Suite struct DecisionLogicTests {
    static let frame = 960

    static func logic(policy: LatePacketPolicy = .recoverFromFECFirst) -> DecisionLogic {
        var configuration = JitterBufferConfiguration()
        configuration.latePacketPolicy = policy
        return DecisionLogic(configuration: configuration, maximumPitchPeriod: 480)
    }

    /// A stored packet `index` frames after the one due at sequence 100, timestamp 48 000 (1 s).
    static func packet(_ index: Int, hasFEC: Bool = false, byteCount: Int = 60, isComfortNoise: Bool = false) -> PacketStore.Slot {
        PacketStore.Slot(isOccupied: true, sequence: 100 + Int64(index), timestamp: 48_000 + Int64(index * frame),
                         arrivalMs: 1_000, byteCount: byteCount, hasFEC: hasFEC, isComfortNoise: isComfortNoise)
    }

    /// Playout due at packet 0; `changes` adjusts the state.
    static func input(next: PacketStore.Slot?, marginMs: Double = 60, queuedSamples: Int = 0, tickSamples: Int = 960,
                      isFirstThisTick: Bool = true, _ changes: (inout PlayoutState) -> Void = { _ in }) -> DecisionLogic.Input {
        var state = PlayoutState()
        state.nextSequence = 100
        state.nextTimestamp = 48_000
        state.lastKind = .normal
        changes(&state)
        return DecisionLogic.Input(state: state, next: next, nowMs: 1_000 + marginMs, fastestOffsetMs: 0, targetDelayMs: 60,
                                   queuedSamples: queuedSamples, tickSamples: tickSamples, isFirstThisTick: isFirstThisTick)
    }

    /// The decision, failing the test if the hold quantile is asked for.
    static func decide(_ logic: DecisionLogic, _ input: DecisionLogic.Input) -> PlayoutDecision {
        logic.decide(input) {
            Issue.record("the hold quantile was asked for a decision that needs no wait")
            return 0
        }
    }

    // MARK: The packet due is there

    @Test func packetDueAtTargetIsDecodedNormally() {
        let decision = Self.decide(Self.logic(), Self.input(next: Self.packet(0)))
        #expect(decision == PlayoutDecision(operation: .normal(Self.packet(0))))
    }

    @Test func packetAfterConcealmentIsMergedIn() {
        let decision = Self.decide(Self.logic(), Self.input(next: Self.packet(0)) {
            $0.expandedSamples = Self.frame
            $0.followsConcealment = true
        })
        #expect(decision.operation == .merge(Self.packet(0)))
    }

    @Test func dtxPacketPlaysTheDecodersComfortNoise() {
        let dtx = Self.packet(0, byteCount: 1, isComfortNoise: true)
        #expect(Self.decide(Self.logic(), Self.input(next: dtx)).operation == .dtxComfortNoise(dtx))
    }

    // MARK: Time-stretching toward the target

    @Test func aboveTargetAccelerates() {
        let logic = Self.logic()
        // 80 ms: the lowest margin (55) + a frame + the 5 ms hysteresis.
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 80)).operation == .accelerate(Self.packet(0), .periods(1), .whenQuiet))
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 79.9)).operation == .normal(Self.packet(0)))
        // Two and three frames above: fast accelerate, never more than three periods.
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 100)).operation == .accelerate(Self.packet(0), .periods(2), .whenQuiet))
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 500)).operation == .accelerate(Self.packet(0), .periods(3), .now))
    }

    @Test func playoutInDevicePeriodsWidensItsBandWithTheTarget() {
        let logic = Self.logic()
        // 10 ms ticks of a 20 ms stream, target 60: the band widens by half the target beyond a
        // tick (25 ms) and a jittery link keeps a tick more, so the lowest margin is 15 ms above
        // the target (75) and a period is removed only a tick, the rest of a frame and the 5 ms
        // hysteresis above that (100 ms).
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 100, tickSamples: 480)).operation
                == .accelerate(Self.packet(0), .periods(1), .whenQuiet))
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 99.9, tickSamples: 480)).operation
                == .normal(Self.packet(0)))
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 75, tickSamples: 480)).operation
                == .normal(Self.packet(0)))
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 74.9, tickSamples: 480)).operation
                == .preemptiveExpand(Self.packet(0), .whenQuiet))
        // Frame ticks tolerate 5 ms below the target there.
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 59.9)).operation == .normal(Self.packet(0)))
        // Each further frame above adds a period, as with frame ticks.
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 120, tickSamples: 480)).operation
                == .accelerate(Self.packet(0), .periods(2), .whenQuiet))
    }

    @Test func aSteadyLinksBandOnDevicePeriodsIsATickAndTheLeastHysteresis() {
        let logic = Self.logic()
        // A target within a tick: no widening, the lowest margin at the fine lattice's minimum
        // (packets are counted at their arrival, so a clean link's margin is the phase of its
        // arrivals against the ticks), and a period removed from a tick and 1 ms above it — a
        // margin a lattice point too high always steps down.
        #expect(logic.lowestMarginMs(targetDelayMs: 2, tickMs: 10) == DecisionLogic.fineLatticeMinimumMarginMs)
        #expect(logic.accelerateMarginMs(targetDelayMs: 2, tickMs: 10)
                == DecisionLogic.fineLatticeMinimumMarginMs + 10 + DecisionLogic.minimumAccelerateHysteresisMs)
        #expect(logic.lowestMarginMs(targetDelayMs: 10, tickMs: 10) == 10)
        #expect(logic.accelerateMarginMs(targetDelayMs: 10, tickMs: 10) == 21)
        // Under the minimum, a period is inserted at once: the next packet is about to miss.
        var input = Self.input(next: Self.packet(0), marginMs: 1.9, tickSamples: 480)
        input.targetDelayMs = 2
        #expect(Self.decide(logic, input).operation == .preemptiveExpand(Self.packet(0), .now))
        input = Self.input(next: Self.packet(0), marginMs: 2, tickSamples: 480)
        input.targetDelayMs = 2
        #expect(Self.decide(logic, input).operation == .normal(Self.packet(0)))
        // Frame ticks are as before: the target less the tolerance, a frame and 5 ms above it,
        // never under their own minimum.
        #expect(logic.lowestMarginMs(targetDelayMs: 60, tickMs: 20) == 55)
        #expect(logic.accelerateMarginMs(targetDelayMs: 60, tickMs: 20) == 80)
        #expect(logic.lowestMarginMs(targetDelayMs: 2, tickMs: 20) == DecisionLogic.minimumMarginMs)
    }

    /// A jittery link on a fine lattice keeps the target's excess over a tick, up to a tick,
    /// on top of its band (`DecisionLogic.jitterTickMs`): nothing at a tick, all of it from two.
    @Test func aJitteryLinkOnDevicePeriodsKeepsUpToATickMore() {
        let logic = Self.logic()
        #expect(logic.jitterTickMs(targetDelayMs: 8, tickMs: 10) == 0)
        #expect(logic.jitterTickMs(targetDelayMs: 14, tickMs: 10) == 4)
        #expect(logic.jitterTickMs(targetDelayMs: 20, tickMs: 10) == 10)
        #expect(logic.jitterTickMs(targetDelayMs: 300, tickMs: 5) == 5)
        // 14: the target, 2 of widening (half of 4), 4 of the tick.
        #expect(logic.lowestMarginMs(targetDelayMs: 14, tickMs: 10) == 20)
        #expect(logic.lowestMarginMs(targetDelayMs: 30, tickMs: 10) == 45)
    }

    @Test func afterALossPlayoutKeepsTheNextPacketAtHand() {
        let logic = Self.logic()
        // A lost packet's successor arrives a frame after it: on 10 ms ticks the margin then
        // keeps at least a frame less a tick plus the minimum (15 ms, widened to 17.5).
        #expect(logic.lossMarginMs(tickMs: 10) == 15)
        #expect(logic.lowestMarginMs(targetDelayMs: 2, tickMs: 10, lossIsRecent: true) == 17.5)
        var input = Self.input(next: Self.packet(0), marginMs: 12, tickSamples: 480)
        input.targetDelayMs = 2
        #expect(Self.decide(logic, input).operation == .normal(Self.packet(0)))
        input.lossIsRecent = true
        #expect(Self.decide(logic, input).operation == .preemptiveExpand(Self.packet(0), .whenQuiet))
        // A target above it is kept as it is.
        #expect(logic.lowestMarginMs(targetDelayMs: 60, tickMs: 10, lossIsRecent: true) == 75)
        // A frame at a time the successor is in time only with a frame's margin plus the minimum.
        #expect(logic.lossMarginMs(tickMs: 20) == 25)
        #expect(logic.lowestMarginMs(targetDelayMs: 2, tickMs: 20) == DecisionLogic.minimumMarginMs)
        #expect(logic.lowestMarginMs(targetDelayMs: 2, tickMs: 20, lossIsRecent: true) == 25)
        #expect(logic.lowestMarginMs(targetDelayMs: 60, tickMs: 20, lossIsRecent: true) == 55)
        var frameInput = Self.input(next: Self.packet(0), marginMs: 20)
        frameInput.targetDelayMs = 2
        #expect(Self.decide(logic, frameInput).operation == .normal(Self.packet(0)))
        frameInput.lossIsRecent = true
        #expect(Self.decide(logic, frameInput).operation == .preemptiveExpand(Self.packet(0), .whenQuiet))
    }

    @Test func givingUpAMissingPacketIsALossAndWaitingIsNot() {
        let logic = Self.logic()
        // Nothing stored: a wait in place (a stall or a loss, not known yet).
        #expect(!Self.decide(logic, Self.input(next: nil)).givesUpAMissingPacket)
        // The packet after the missing one carries FEC: rebuilt, a loss.
        #expect(Self.decide(logic, Self.input(next: Self.packet(1, hasFEC: true))).givesUpAMissingPacket)
        // The packet due is there: no loss.
        #expect(!Self.decide(logic, Self.input(next: Self.packet(0))).givesUpAMissingPacket)
        // Its span already concealed while waiting: skipped, a loss.
        let skipped = Self.decide(logic, Self.input(next: Self.packet(1)) { $0.waitedSamples = Self.frame; $0.expandedSamples = Self.frame })
        #expect(skipped.givesUpAMissingPacket)
    }

    @Test func onlyFarFromTheTargetDoesAStretchNotWaitForAPause() {
        let logic = Self.logic()
        // Six frames above the lowest margin plus the hysteresis: 55 + 120 + 5 = 180 ms.
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 179.9)).operation
                == .accelerate(Self.packet(0), .periods(3), .whenQuiet))
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 180)).operation
                == .accelerate(Self.packet(0), .periods(3), .now))
        // However far below the lowest margin (55 ms), a period waits for a pause until the
        // margin is under the floor (5 ms): only there is the next packet about to be missed.
        for margin in [54.9, 44.9, 20, 5] {
            #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: margin)).operation
                    == .preemptiveExpand(Self.packet(0), .whenQuiet))
        }
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 4.9)).operation
                == .preemptiveExpand(Self.packet(0), .now))
    }

    /// How far above target playout is counts in steps of at least 20 ms
    /// (`DecisionLogic.hurryStepMs`): a 10 ms call hurries only where a 20 ms one does.
    @Test func aTenMillisecondCallHurriesWhereATwentyMillisecondOneDoes() {
        var configuration = JitterBufferConfiguration()
        configuration.frameDurationMs = 10
        let logic = DecisionLogic(configuration: configuration, maximumPitchPeriod: 480)
        func operation(_ marginMs: Double) -> PlayoutOperation {
            Self.decide(logic, Self.input(next: Self.packet(0), marginMs: marginMs, tickSamples: 480)).operation
        }
        // From the lowest margin (55) + a frame (10) + the hysteresis: one period, a second
        // and a third 20 and 40 ms above that.
        #expect(operation(69.9) == .normal(Self.packet(0)))
        #expect(operation(70) == .accelerate(Self.packet(0), .periods(1), .whenQuiet))
        #expect(operation(90) == .accelerate(Self.packet(0), .periods(2), .whenQuiet))
        #expect(operation(110) == .accelerate(Self.packet(0), .periods(3), .whenQuiet))
        // At once only from six spans (120 ms) above the lowest margin plus the hysteresis.
        #expect(operation(179.9) == .accelerate(Self.packet(0), .periods(3), .whenQuiet))
        #expect(operation(180) == .accelerate(Self.packet(0), .periods(3), .now))
    }

    @Test func theWaitingPolicyStretchesAtOnce() {
        let logic = Self.logic(policy: .waitForPacket)
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 80)).operation == .accelerate(Self.packet(0), .periods(1), .now))
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 54.9)).operation == .preemptiveExpand(Self.packet(0), .now))
    }

    @Test func onlyTheTicksFirstProductionAcceleratesByAFrame() {
        let decision = Self.decide(Self.logic(), Self.input(next: Self.packet(0), marginMs: 100, isFirstThisTick: false))
        #expect(decision.operation == .normal(Self.packet(0)))
    }

    @Test func audioLeftFromStretchingIsTrimmed() {
        // At or above the lowest margin with a quarter of the longest period (120 samples) queued.
        let trimmed = Self.decide(Self.logic(), Self.input(next: Self.packet(0), queuedSamples: 120, isFirstThisTick: false))
        #expect(trimmed.operation == .accelerate(Self.packet(0), .queuedSamples(120), .whenQuiet))
        let kept = Self.decide(Self.logic(), Self.input(next: Self.packet(0), queuedSamples: 119, isFirstThisTick: false))
        #expect(kept.operation == .normal(Self.packet(0)))
    }

    @Test func belowTargetExpandsPreemptively() {
        let logic = Self.logic()
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 54.9)).operation == .preemptiveExpand(Self.packet(0), .whenQuiet))
        // Not while a frame's worth of audio is already queued.
        let queued = Self.decide(logic, Self.input(next: Self.packet(0), marginMs: 40, queuedSamples: Self.frame, isFirstThisTick: false))
        #expect(queued.operation == .normal(Self.packet(0)))
    }

    @Test func stretchingOffNeverStretches() {
        var configuration = JitterBufferConfiguration()
        configuration.allowsTimeStretching = false
        let logic = DecisionLogic(configuration: configuration, maximumPitchPeriod: 480)
        for margin in [0.0, 24.9, 54.9, 80, 180, 500] {
            #expect(Self.decide(logic, Self.input(next: Self.packet(0), marginMs: margin)).operation == .normal(Self.packet(0)))
        }
        #expect(Self.decide(logic, Self.input(next: Self.packet(0), queuedSamples: 480, isFirstThisTick: false)).operation
                == .normal(Self.packet(0)))
    }

    @Test func theMarginNeverSitsBelowTheMinimum() {
        var input = Self.input(next: Self.packet(0), marginMs: 4)
        input.targetDelayMs = 0  // lowest margin: 5 ms, not −5
        #expect(Self.decide(Self.logic(), input).operation == .preemptiveExpand(Self.packet(0), .now))
        #expect(Self.logic().lowestMarginMs(targetDelayMs: 0) == DecisionLogic.minimumMarginMs)
    }

    // MARK: Nothing to play

    @Test func nothingStoredConcealsInPlace() {
        #expect(Self.decide(Self.logic(), Self.input(next: nil)).operation == .expand(.waiting))
    }

    @Test func nothingStoredDuringDTXPlaysComfortNoiseInPlace() {
        let decision = Self.decide(Self.logic(), Self.input(next: nil) { $0.isInDTX = true })
        #expect(decision.operation == .comfortNoise(sampleCount: Self.frame, advancing: false))
    }

    // MARK: Sender DTX gaps

    @Test func timestampJumpWithContiguousSequenceIsComfortNoise() {
        // The packet due is 3 frames later in media time than playout: the sender was silent.
        var next = Self.packet(0)
        next.timestamp += 3 * Int64(Self.frame)
        let decision = Self.decide(Self.logic(), Self.input(next: next))
        #expect(decision == PlayoutDecision(operation: .comfortNoise(sampleCount: Self.frame, advancing: true)))
        // The last part of a gap shorter than a frame.
        var short = Self.packet(0)
        short.timestamp += 240
        #expect(Self.decide(Self.logic(), Self.input(next: short)).operation == .comfortNoise(sampleCount: 240, advancing: true))
    }

    @Test func comfortNoisePlayedWhileWaitingCountsTowardTheGap() {
        var next = Self.packet(0)
        next.timestamp += 3 * Int64(Self.frame)
        // Two frames were played waiting for the sender: one frame of the gap is left.
        let partly = Self.decide(Self.logic(), Self.input(next: next) { $0.waitedSamples = 2 * Self.frame })
        #expect(partly == PlayoutDecision(realignment: .creditWaitedSamples(2 * Self.frame),
                                          operation: .comfortNoise(sampleCount: Self.frame, advancing: true)))
        // Four frames: the whole gap is covered, and the packet plays at once (not a merge:
        // what was played was the sender's silence).
        let wholly = Self.decide(Self.logic(), Self.input(next: next, marginMs: 60 + 60) {
            $0.waitedSamples = 4 * Self.frame
            $0.expandedSamples = 4 * Self.frame
            $0.followsConcealment = true
        })
        #expect(wholly.realignment == .creditWaitedSamples(3 * Self.frame))
        #expect(wholly.operation == .normal(next))
    }

    // MARK: The packet due is missing, a later one is stored

    @Test func fecFirstRebuildsAnOvertakenPacketAtOnce() {
        let carrier = Self.packet(1, hasFEC: true)
        let decision = Self.decide(Self.logic(policy: .recoverFromFECFirst), Self.input(next: carrier))
        #expect(decision == PlayoutDecision(operation: .fecRecovery(carrier: carrier, sampleCount: Self.frame)))
    }

    @Test func waitingPolicyWaitsForAnOvertakenPacketWithinTheHoldQuantile() {
        let carrier = Self.packet(1, hasFEC: true)
        let logic = Self.logic(policy: .waitForPacket)
        // Its lateness so far (margin 60 ms) is within what 99.9 % of recent packets reached (70 ms).
        #expect(logic.decide(Self.input(next: carrier), holdLimitMs: { 70 }).operation == .expand(.waiting))
        // Later than recent packets ever were: most likely lost, so FEC rebuilds it.
        #expect(logic.decide(Self.input(next: carrier), holdLimitMs: { 50 }).operation
                == .fecRecovery(carrier: carrier, sampleCount: Self.frame))
        // Waited the longest hold (80 ms) already, however late packets were: given up, and as
        // its span has long been concealed, playout skips to the carrier and merges it in.
        let held = Self.input(next: carrier) {
            $0.waitedSamples = 80 * 48
            $0.expandedSamples = 80 * 48
            $0.followsConcealment = true
        }
        #expect(logic.decide(held, holdLimitMs: { 1_000 })
                == PlayoutDecision(realignment: .skipMissingPackets(sequence: 101, timestamp: 48_960), operation: .merge(carrier)))
    }

    @Test(arguments: [LatePacketPolicy.recoverFromFECFirst, .waitForPacket])
    func withoutFECBothPoliciesWaitThenConceal(policy: LatePacketPolicy) {
        // Below the target (margin 50 of 60): waiting raises the delay toward the target anyway.
        let logic = Self.logic(policy: policy)
        let next = Self.packet(1)
        #expect(logic.decide(Self.input(next: next, marginMs: 50), holdLimitMs: { 70 }).operation == .expand(.waiting))
        #expect(logic.decide(Self.input(next: next, marginMs: 50), holdLimitMs: { 40 }).operation == .expand(.advancing(toward: next)))
    }

    @Test func atTheTargetOnlyTheWaitingPolicyWaits() {
        // At the target a wait is a frame of concealment the listener hears plus delay to be
        // taken out again: FEC-first conceals and goes on; the waiting policy still waits.
        let next = Self.packet(1)
        #expect(Self.logic(policy: .recoverFromFECFirst).decide(Self.input(next: next), holdLimitMs: { 70 }).operation
                == .expand(.advancing(toward: next)))
        #expect(Self.logic(policy: .waitForPacket).decide(Self.input(next: next), holdLimitMs: { 70 }).operation
                == .expand(.waiting))
    }

    @Test func aBurstIsConcealedUpToItsLastPacketWhichFECRebuilds() {
        let logic = Self.logic()
        // Two packets missing: the carrier's FEC covers only the one before it, so the first is concealed.
        let later = Self.packet(2, hasFEC: true)
        #expect(logic.decide(Self.input(next: later), holdLimitMs: { 0 }).operation == .expand(.advancing(toward: later)))
        // That frame concealed (playout a frame on, still at the first missing sequence number):
        // what is left is the carrier's predecessor, which its FEC rebuilds.
        let concealedOne = Self.input(next: later) {
            $0.nextTimestamp += Int64(Self.frame)
            $0.expandedSamples = Self.frame
            $0.followsConcealment = true
            $0.lastKind = .expand
        }
        #expect(logic.decide(concealedOne, holdLimitMs: { 0 }).operation == .fecRecovery(carrier: later, sampleCount: Self.frame))
        // Without FEC in the carrier it is concealed too.
        let plain = Self.packet(2)
        var concealedPlain = concealedOne
        concealedPlain.next = plain
        #expect(logic.decide(concealedPlain, holdLimitMs: { 0 }).operation == .expand(.advancing(toward: plain)))
    }

    @Test func aBurstWaitedForIsRebuiltAtItsLastPacketFromFEC() {
        // Nothing later was stored when the burst fell due, so playout waited a frame in place
        // (concealing). That frame stands for the burst's first packet: when the carrier comes,
        // its FEC rebuilds the one before it, the waited frame credited as the span's start.
        let logic = Self.logic()
        let carrier = Self.packet(2, hasFEC: true)
        let waitedOne = Self.input(next: carrier) {
            $0.waitedSamples = Self.frame
            $0.expandedSamples = Self.frame
            $0.followsConcealment = true
            $0.lastKind = .expand
        }
        #expect(logic.decide(waitedOne, holdLimitMs: { 0 })
                == PlayoutDecision(realignment: .creditWaitedSamples(Self.frame), operation: .fecRecovery(carrier: carrier, sampleCount: Self.frame)))
        // Three missing after one waited frame: the second is concealed first, moving on.
        let longer = Self.packet(3, hasFEC: true)
        var waitedBeforeLonger = waitedOne
        waitedBeforeLonger.next = longer
        #expect(logic.decide(waitedBeforeLonger, holdLimitMs: { 0 }).operation == .expand(.advancing(toward: longer)))
        // A lone missing packet whose span the wait already covered: nothing is left for FEC to
        // rebuild, so playout skips to the carrier (as without FEC).
        let next = Self.packet(1, hasFEC: true)
        var waitedBeforeNext = waitedOne
        waitedBeforeNext.next = next
        #expect(logic.decide(waitedBeforeNext, holdLimitMs: { 0 })
                == PlayoutDecision(realignment: .skipMissingPackets(sequence: 101, timestamp: 48_960), operation: .merge(next)))
    }

    @Test func missingPacketsWhoseSpanWasConcealedAreGivenUp() {
        // A frame was concealed in place while waiting, and the wait ends (the missing packet is
        // now later than recent packets were); its whole span (one frame) is spent, so playout
        // skips to the next stored packet and merges it in.
        let next = Self.packet(1)
        let decision = Self.logic().decide(Self.input(next: next, marginMs: 80) {
            $0.waitedSamples = Self.frame
            $0.expandedSamples = Self.frame
            $0.followsConcealment = true
            $0.lastKind = .expand
        }, holdLimitMs: { 70 })
        #expect(decision == PlayoutDecision(realignment: .skipMissingPackets(sequence: 101, timestamp: 48_960),
                                            operation: .merge(next)))
    }

    // MARK: Starting playout

    @Test func playoutStartsOnceTheFirstPacketWaitedTheTargetLessTheTolerance() {
        let logic = Self.logic()
        #expect(!logic.startsPlayout(nextTimestamp: 48_000, nowMs: 1_054.9, fastestOffsetMs: 0, targetDelayMs: 60))
        #expect(logic.startsPlayout(nextTimestamp: 48_000, nowMs: 1_055, fastestOffsetMs: 0, targetDelayMs: 60))
        // The fastest packet's offset is part of the margin: a path 30 ms slower needs 30 ms more.
        #expect(!logic.startsPlayout(nextTimestamp: 48_000, nowMs: 1_055, fastestOffsetMs: 30, targetDelayMs: 60))
    }
}
