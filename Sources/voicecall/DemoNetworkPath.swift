import NetworkSimulation

/// One direction of the simulated network: the n-th datagram sent takes the fate of the
/// n-th packet of a `NetworkSimulator` trace (lost, or delayed by its arrival minus its send
/// time). The same for the real-time relay and the virtual-clock loop, so `--fast` and real
/// time impair a call alike for one seed.
struct DemoNetworkPath {
    /// The delay (ms) of each datagram in send order, nil for a lost one; empty: clean.
    private let fates: [Double?]
    private var next = 0
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
        guard let profile else { fates = []; return }
        // RTCP shares the path (rtcp-mux): a margin of one datagram in eight, and twice over.
        let count = Int(min(seconds, DemoOptions.maximumSeconds) * 1_000 / Double(ptimeMs) * 2.25) + 64
        var generator = DemoRandom(seed: seed)
        let trace = NetworkSimulator(profile: profile).trace(packetCount: count, packetIntervalMs: Double(ptimeMs), using: &generator)
        fates = trace.packets.map(\.delayMs)
    }

    /// Whether the path is a clean loopback.
    var isClean: Bool { fates.isEmpty }

    /// The next datagram's fate, sent at `sendMs`: its delay in ms, or nil when lost. Past the
    /// trace's end the path is clean (it is sized for twice the call).
    mutating func fate(sendMs: Double) -> Double? {
        carried += 1
        guard !fates.isEmpty else { return 0 }
        let fate = next < fates.count ? fates[next] : 0
        next += 1
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
