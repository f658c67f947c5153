// SPDX-License-Identifier: Apache-2.0
/// Burst and gap metrics of a received stream (RFC 3611 §4.7.2), from the fate of each packet
/// in sequence order: received, lost (never arrived) or discarded (arrived too late or too
/// early to play). A lost or discarded packet is *impaired*.
///
/// With the gap threshold Gmin (16 by default, as the RFC recommends):
/// - a **burst** is the longest run that starts and ends with an impaired packet and never
///   holds Gmin or more received packets in a row, with at least two impaired packets in it;
/// - an impaired packet with at least Gmin received packets on each side is **isolated** and
///   belongs to the gap around it (RFC 3611's Gmin text and its Appendix A.2 state 4);
/// - a **gap** is a run of packets between bursts (or before the first, or after the last).
///
/// As the RFC says, the stream counts as preceded and followed by Gmin received packets, and
/// the time of a report is the end of the stream: every figure here reads the stream as if it
/// ended now, without changing what later packets do.
///
/// This counts bursts and gaps exactly, where RFC 3611 Appendix A.2 estimates them from
/// Markov-chain transition counts (accurate "to within 1"), so its figures are the exact
/// values that algorithm approximates. A plain value (`BitwiseCopyable`, so it can cross
/// threads through a lock-free ring): `record` never allocates.
public struct BurstGapStatistics: Sendable, Hashable, BitwiseCopyable {
    /// The fate of one packet.
    public enum Outcome: Sendable, Hashable, BitwiseCopyable {
        /// Arrived in time to be played.
        case received
        /// Never arrived.
        case lost
        /// Arrived, but too late (or too early) to be played.
        case discarded
    }

    /// The gap threshold Gmin, 1–255.
    public let gapThreshold: Int
    /// Packets recorded.
    public private(set) var packetCount = 0
    /// Packets recorded as lost.
    public private(set) var lostCount = 0
    /// Packets recorded as discarded.
    public private(set) var discardedCount = 0
    /// Runs of consecutive impaired packets (for the burst ratio).
    public private(set) var impairedRunCount = 0

    // Closed periods.
    private var bursts = 0, burstPackets = 0, burstImpaired = 0
    private var gaps = 0, gapPackets = 0, gapImpaired = 0
    /// Packets of the gap in progress (before any open candidate).
    private var openGapPackets = 0, openGapImpaired = 0
    /// A candidate burst in progress: from its first impaired packet through its last one
    /// (0 packets: none). It becomes a burst if it holds two impaired packets when Gmin
    /// received packets close it, and an isolated loss in the gap otherwise.
    private var candidatePackets = 0, candidateImpaired = 0
    /// Received packets in a row since the last impaired one.
    private var receivedRun = 0
    private var previousImpaired = false

    /// Statistics with gap threshold `gapThreshold` (clamped to 1–255, the 8-bit Gmin field).
    public init(gapThreshold: Int = 16) {
        self.gapThreshold = min(max(gapThreshold, 1), 255)
    }

    /// Records the next packet in sequence order.
    public mutating func record(_ outcome: Outcome) {
        packetCount += 1
        switch outcome {
        case .received:
            previousImpaired = false
            if candidatePackets == 0 {
                openGapPackets += 1
                return
            }
            receivedRun += 1
            if receivedRun >= gapThreshold { closeCandidate() }
        case .lost, .discarded:
            if outcome == .lost { lostCount += 1 } else { discardedCount += 1 }
            if !previousImpaired { impairedRunCount += 1 }
            previousImpaired = true
            // The received packets since the last impaired one were fewer than Gmin (else the
            // candidate would be closed): they join it.
            candidatePackets += receivedRun + 1
            candidateImpaired += 1
            receivedRun = 0
        }
    }

    /// Ends the candidate: Gmin received packets follow its last impaired packet.
    private mutating func closeCandidate() {
        if candidateImpaired >= 2 {
            if openGapPackets > 0 {
                gaps += 1
                gapPackets += openGapPackets
                gapImpaired += openGapImpaired
            }
            bursts += 1
            burstPackets += candidatePackets
            burstImpaired += candidateImpaired
            openGapPackets = 0
            openGapImpaired = 0
        } else {
            openGapPackets += candidatePackets
            openGapImpaired += candidateImpaired
        }
        openGapPackets += receivedRun
        candidatePackets = 0
        candidateImpaired = 0
        receivedRun = 0
    }

    /// The statistics as they stand if the stream ends now (followed by Gmin received).
    private var ended: BurstGapStatistics {
        var copy = self
        if copy.candidatePackets > 0 { copy.closeCandidate() }
        if copy.openGapPackets > 0 {
            copy.gaps += 1
            copy.gapPackets += copy.openGapPackets
            copy.gapImpaired += copy.openGapImpaired
            copy.openGapPackets = 0
            copy.openGapImpaired = 0
        }
        return copy
    }

    /// Bursts so far.
    public var burstCount: Int { ended.bursts }
    /// Gaps so far (one when there has been no burst, if any packet was recorded).
    public var gapCount: Int { ended.gaps }
    /// Share of the packets in bursts that were impaired, 0…1 (0 without bursts).
    public var burstDensity: Double {
        let all = ended
        return all.burstPackets == 0 ? 0 : Double(all.burstImpaired) / Double(all.burstPackets)
    }
    /// Share of the packets in gaps that were impaired (isolated), 0…1.
    public var gapDensity: Double {
        let all = ended
        return all.gapPackets == 0 ? 0 : Double(all.gapImpaired) / Double(all.gapPackets)
    }
    /// Mean packets per burst (0 without bursts).
    public var meanBurstLength: Double {
        let all = ended
        return all.bursts == 0 ? 0 : Double(all.burstPackets) / Double(all.bursts)
    }
    /// Mean packets per gap (0 before any packet).
    public var meanGapLength: Double {
        let all = ended
        return all.gaps == 0 ? 0 : Double(all.gapPackets) / Double(all.gaps)
    }

    /// The ITU-T G.107 burst ratio BurstR: the mean length of the runs of impaired packets over
    /// the mean a random (Bernoulli) loss of the same rate would give, 1 / (1 − p). 1 for random
    /// loss, above 1 for bursty loss; 1 when nothing was impaired.
    public var burstRatio: Double {
        Self.burstRatio(packets: packetCount, impaired: lostCount + discardedCount, impairedRuns: impairedRunCount)
    }

    /// The burst ratio of the packets recorded since `earlier` (a copy of these statistics
    /// taken before): the same measure over that span alone (a run that began before it counts
    /// as one of its runs).
    public func burstRatio(since earlier: BurstGapStatistics) -> Double {
        Self.burstRatio(packets: packetCount - earlier.packetCount,
                        impaired: lostCount + discardedCount - earlier.lostCount - earlier.discardedCount,
                        impairedRuns: max(impairedRunCount - earlier.impairedRunCount, 1))
    }

    private static func burstRatio(packets: Int, impaired: Int, impairedRuns: Int) -> Double {
        guard impaired > 0, impairedRuns > 0, impaired < packets else { return 1 }
        let probability = Double(impaired) / Double(packets)
        return max(1, Double(impaired) / Double(impairedRuns) * (1 - probability))
    }
}
