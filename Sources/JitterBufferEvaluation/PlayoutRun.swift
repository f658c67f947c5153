// SPDX-License-Identifier: Apache-2.0
import JitterBuffer
import NetworkSimulation

/// What one jitter buffer did with one trace: when each packet started playing, and how many
/// receiver ticks were concealment.
public struct PlayoutRun: Sendable {
    /// Receiver ticks from the first played packet to the last, inclusive.
    public var activeTicks = 0
    /// Active ticks in which no packet started (concealment, inserted silence).
    public var concealedTicks = 0
    /// Ticks whose audio was rebuilt from the next packet's in-band FEC (ours only).
    public var fecRecoveredTicks = 0
    /// Trace sequences whose audio was rebuilt from the next packet's FEC (ours only).
    public var fecRecoveredSequences: Set<Int> = []
    /// Trace sequence → receiver time of the tick in which its audio started, in ms.
    public var playTimeMs: [Int: Double] = [:]
    /// Ticks whose audio was time-stretched (accelerated or preemptively expanded; ours only).
    public var stretchedTicks = 0
    /// Every tick processed (including before the first packet).
    public var ticks = 0
    /// Wall time spent inside the buffer (and its decoder) over all ticks, in ns.
    public var elapsedNanoseconds = 0.0
    /// What the buffer had learnt of the path at the end (ours only; nil if it saw no packet).
    public var learntDelays: LearntDelays?

    private var firstPlayTick: Int? = nil
    private var concealedSinceLastPlay = 0

    /// An empty run.
    public init() {}

    /// Books one receiver tick: the packets (trace sequences) whose audio started at `nowMs`,
    /// or, when none did, whether the tick was concealment. Concealed ticks count only between
    /// the first and the last played packet, so start-up and the drained tail do not.
    public mutating func recordTick(_ tick: Int, nowMs: Double, played: ClosedRange<Int>?, concealed: Bool) {
        guard let played else {
            if concealed && firstPlayTick != nil { concealedSinceLastPlay += 1 }
            return
        }
        for sequence in played { playTimeMs[sequence] = nowMs }
        if let first = firstPlayTick {
            concealedTicks += concealedSinceLastPlay
            activeTicks = tick - first + 1
        } else {
            firstPlayTick = tick
            activeTicks = 1
        }
        concealedSinceLastPlay = 0
    }

    /// Microseconds of wall time per tick.
    public var microsecondsPerTick: Double { ticks == 0 ? 0 : elapsedNanoseconds / Double(ticks) / 1_000 }

    /// Send→play delay of every played packet, in sequence order.
    public func delaysMs(_ trace: NetworkTrace) -> [Double] {
        trace.packets.compactMap { packet in playTimeMs[packet.sequence].map { $0 - packet.sendMs } }
    }

    /// The summary figures on `trace`.
    public func summary(_ trace: NetworkTrace) -> PlayoutSummary {
        let delays = delaysMs(trace).sorted()
        let received = trace.receivedCount
        let playedReceived = trace.packets.reduce(0) { $0 + ($1.arrivalMs != nil && playTimeMs[$1.sequence] != nil ? 1 : 0) }
        let recoveredReceived = trace.packets.reduce(0) {
            $0 + ($1.arrivalMs != nil && playTimeMs[$1.sequence] == nil && fecRecoveredSequences.contains($1.sequence) ? 1 : 0)
        }
        return PlayoutSummary(
            meanDelayMs: delays.isEmpty ? .nan : delays.reduce(0, +) / Double(delays.count),
            p95DelayMs: delays.isEmpty ? .nan : delays[min(delays.count - 1, Int((0.95 * Double(delays.count)).rounded(.up)) - 1)],
            lateLoss: received == 0 ? 0 : Double(received - playedReceived) / Double(received),
            lateLossCreditingFEC: received == 0 ? 0 : Double(received - playedReceived - recoveredReceived) / Double(received),
            concealed: activeTicks == 0 ? 0 : Double(concealedTicks) / Double(activeTicks),
            microsecondsPerTick: microsecondsPerTick)
    }
}
