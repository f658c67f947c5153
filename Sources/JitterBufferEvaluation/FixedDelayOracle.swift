// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation

/// The best a fixed playout delay can do on a trace, known in full in advance: the smallest
/// delay D that keeps late loss ≤ p is the (1 − p) quantile of one-way delay over the received
/// packets. Every packet then plays D after it was sent, so the mean (and every percentile) of
/// send→play delay is D. An adaptive buffer that plays with less mean delay at the same late
/// loss beats every fixed delay, including the one chosen with hindsight.
public struct FixedDelayOracle: Sendable {
    /// The late-loss budget p (a fraction).
    public var lateLossBudget: Double
    /// The fixed playout delay D in milliseconds.
    public var delayMs: Double
    /// Late loss actually reached (≤ p: the quantile is taken on whole packets).
    public var lateLoss: Double
    /// Packets not played (lost in the network or late) / packets sent: the concealed share.
    public var concealed: Double

    /// The oracle on `trace` with late-loss budget `lateLoss` (fraction, 0…1).
    public init(trace: NetworkTrace, lateLoss budget: Double) {
        let delays = trace.delaysMs.sorted()
        lateLossBudget = budget
        guard !delays.isEmpty else {
            delayMs = .nan; lateLoss = 0; concealed = 1
            return
        }
        // Smallest index k with (n − k − 1) / n ≤ p: at most p·n packets above D.
        let n = Double(delays.count)
        let allowedLate = Int((budget * n + 1e-9).rounded(.down))
        let index = max(0, delays.count - 1 - allowedLate)
        delayMs = delays[index]
        let late = delays.count - 1 - index - delays[(index + 1)...].prefix { $0 <= delays[index] }.count
        lateLoss = Double(late) / n
        concealed = trace.packets.isEmpty ? 0 : Double(trace.packets.count - (delays.count - late)) / Double(trace.packets.count)
    }
}
