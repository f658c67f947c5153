// SPDX-License-Identifier: Apache-2.0
internal import Glibc

/// Turns a ``NetworkProfile`` into a ``NetworkTrace``: the send and arrival time of every packet
/// of a constant-rate stream.
///
/// Per packet, in sequence order: the Gilbert–Elliott chain decides loss, outages lose every
/// packet sent during them, and a packet that gets through takes the base delay plus a Pareto
/// queueing delay drawn independently per packet (as netem does), so with jitter larger than
/// the packet interval later packets may overtake earlier ones. On top of that a few packets
/// take a slower route (``NetworkProfile/reorderProbability``: 1.1–3 packet intervals extra). A
/// delay spike stalls the path: nothing arrives for its duration, then the held packets
/// arrive back to back, in order. Finally arrival times are read on the receiver's clock, which
/// drifts by ``NetworkProfile/clockDriftPpm`` from the sender's.
///
/// The randomness comes only from the generator passed in, so a seeded generator gives the
/// same trace every time.
public struct NetworkSimulator: Sendable {
    /// The impairments applied.
    public var profile: NetworkProfile

    /// Spacing of packets arriving back to back after a stall, in milliseconds.
    public static let burstSpacingMs = 0.1

    /// A simulator of `profile`.
    public init(profile: NetworkProfile) {
        self.profile = profile
    }

    /// The fate of `packetCount` packets sent every `packetIntervalMs` from time 0.
    public func trace<Generator: RandomNumberGenerator>(
        packetCount: Int, packetIntervalMs: Double = 20, using generator: inout Generator
    ) -> NetworkTrace {
        let durationMs = Double(packetCount) * packetIntervalMs
        let baseDelay = profile.baseDelayMs.lowerBound == profile.baseDelayMs.upperBound
            ? profile.baseDelayMs.lowerBound : Double.random(in: profile.baseDelayMs, using: &generator)
        let outages = Self.windows(meanIntervalMs: profile.outageIntervalMs, untilMs: durationMs, using: &generator) { _ in
            profile.outageDurationMs
        }
        let spikeInterval = profile.spikesPerMinute > 0 ? 60_000 / profile.spikesPerMinute : .infinity
        let spikes = Self.windows(meanIntervalMs: spikeInterval, untilMs: durationMs + baseDelay, using: &generator) { generator in
            Double.random(in: profile.spikeDurationMs, using: &generator)
        }
        var loss = profile.loss
        var packets: [TracePacket] = []
        packets.reserveCapacity(packetCount)
        var lastHeldArrival = -Double.infinity
        var outageIndex = 0
        var spikeIndex = 0
        let driftFactor = 1 + profile.clockDriftPpm / 1_000_000
        for sequence in 0..<packetCount {
            let send = Double(sequence) * packetIntervalMs
            // Draw every random number for every packet, so one impairment's setting does not
            // shift the others' random sequence.
            let lostOnLink = loss.nextIsLost(using: &generator)
            let queueing = profile.jitter.sampleMs(using: &generator)
            let takesSlowRoute = Double.random(in: 0..<1, using: &generator) < profile.reorderProbability
            let slowRouteExtra = Double.random(in: 1.1...3, using: &generator) * packetIntervalMs
            while outageIndex < outages.count && outages[outageIndex].upperBound <= send { outageIndex += 1 }
            let inOutage = outageIndex < outages.count && outages[outageIndex].contains(send)
            guard !lostOnLink && !inOutage else {
                packets.append(TracePacket(sequence: sequence, sendMs: send, arrivalMs: nil))
                continue
            }
            var arrival = send + baseDelay + queueing
            if takesSlowRoute { arrival += slowRouteExtra }
            // Spikes are met in send order; a reordered packet may look back one window.
            while spikeIndex < spikes.count && spikes[spikeIndex].upperBound <= arrival - 2_000 { spikeIndex += 1 }
            if let stall = spikes[spikeIndex...].first(where: { $0.contains(arrival) }) {
                arrival = max(stall.upperBound, lastHeldArrival + Self.burstSpacingMs)
                lastHeldArrival = arrival
            }
            packets.append(TracePacket(sequence: sequence, sendMs: send, arrivalMs: arrival * driftFactor))
        }
        return NetworkTrace(packets: packets)
    }

    /// Non-overlapping windows starting as a Poisson process of mean spacing `meanIntervalMs`
    /// (measured from the end of the previous window), each as long as `duration` says.
    private static func windows<Generator: RandomNumberGenerator>(
        meanIntervalMs: Double, untilMs end: Double, using generator: inout Generator,
        duration: (inout Generator) -> Double
    ) -> [Range<Double>] {
        guard meanIntervalMs.isFinite && meanIntervalMs > 0 else { return [] }
        var result: [Range<Double>] = []
        var time = 0.0
        while true {
            let uniform = 1 - Double.random(in: 0..<1, using: &generator)
            time += -log(uniform) * meanIntervalMs
            guard time < end else { return result }
            let length = duration(&generator)
            guard length > 0 else { continue }
            result.append(time..<(time + length))
            time += length
        }
    }
}
