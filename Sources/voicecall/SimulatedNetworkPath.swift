// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation

/// One direction of the simulated network: a datagram sent at time t takes the fate of the
/// `NetworkSimulator` trace's packet sent nearest t (lost, or delayed by its arrival minus its
/// send time), so RTP packet n meets trace packet n and an RTCP report shares the fate of the
/// packet it travels with — RTCP's randomised timing does not shift the pattern, and one seed
/// gives one call on the virtual clock. The same for the demo's real-time relay. `voicecall
/// relay` gives RTP packets the fate of their index in the stream instead (`fate(sendMs:index:)`),
/// so every receiver behind it loses and delays the same packets whatever the timing.
struct SimulatedNetworkPath {
    /// The delay (ms) of each packet interval's packet, nil for a lost one; empty: clean.
    private let fates: [Double?]
    private let intervalMs: Double
    /// The delays applied so far, with the send time (ms since the path started) of each:
    /// what the "network delay" plot draws.
    private(set) var appliedDelays: [(sendMs: Double, delayMs: Double)] = []
    /// Datagrams dropped so far.
    private(set) var dropped = 0
    /// Datagrams seen so far.
    private(set) var carried = 0

    /// A path impairing like `profile` (nil: clean) for about `seconds` of `ptimeMs` packets,
    /// its randomness from `seed`.
    init(profile: NetworkProfile?, seconds: Double, ptimeMs: Int, seed: UInt64) {
        intervalMs = Double(ptimeMs)
        guard let profile else { fates = []; return }
        // A margin for the set-up and the hang-up around the call.
        let count = Int(min(seconds, DemoOptions.maximumSeconds) * 1_000 / Double(ptimeMs)) + 256
        var generator = DemoRandom(seed: seed)
        let trace = NetworkSimulator(profile: profile).trace(packetCount: count, packetIntervalMs: Double(ptimeMs), using: &generator)
        fates = trace.packets.map(\.delayMs)
    }

    /// A path replaying `trace`: packet n's fate is trace packet n's (lost, or delayed by its
    /// arrival minus its send time); `intervalMs` places datagrams by send time.
    init(trace: NetworkTrace, intervalMs: Double) {
        self.intervalMs = intervalMs
        fates = trace.packets.map(\.delayMs)
    }

    /// Whether the path is a clean loopback.
    var isClean: Bool { fates.isEmpty }

    /// The fate of a datagram sent at `sendMs` (ms since the path started), or of packet
    /// `index` of the stream when given: its delay in ms, or nil when lost. Past the trace's
    /// end the path is clean.
    mutating func fate(sendMs: Double, index: Int? = nil) -> Double? {
        carried += 1
        guard !fates.isEmpty else { return 0 }
        let slot = index.map { min(max($0, 0), fates.count) }
            ?? (sendMs.isFinite ? Int(max(0, min((sendMs / intervalMs).rounded(), Double(fates.count)))) : fates.count)
        let fate = slot < fates.count ? fates[slot] : 0
        if let delay = fate {
            appliedDelays.append((sendMs, delay))
        } else {
            dropped += 1
        }
        return fate
    }
}

/// SplitMix64: the demo's seeded generator (voicecall does not link the test support module's).
struct DemoRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
