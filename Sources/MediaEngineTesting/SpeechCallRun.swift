// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import NetworkSimulation
import TestSupport

/// Two speech fixtures talked through a two-way call (`CallLoop`) on the virtual clock, each
/// direction over its own draw of a network, for scoring what each side heard against what
/// the other said.
///
/// Each side says its fixture twice, in two passes of the same length: the longer fixture
/// plus a gap of silence. The first pass warms the call up — the jitter buffer learns the
/// network, RTCP reports arrive (the first after 1–3 s, then every 2–6 s) and the adaptive
/// encoder plans FEC from them — and the second is the call in its steady state, as in the
/// minutes of a real call after its first seconds. What each loudspeaker played is cut into
/// the same two windows, each starting when its pass was sent: a window holds its pass's
/// speech however late it plays, as long as the network and the jitter buffer delay it by
/// less than the gap (1.5 s by default; G.1050 class F with its buffer plays about 0.7 s
/// late), and nothing of the other pass. Every window is therefore cut by the same rule,
/// whatever the FEC plan or the network.
///
/// Voice processing is off on both sides (no echo in the loop): what is measured is the codec,
/// its FEC and the network behind the jitter buffer.
public struct SpeechCallRun {
    /// What one side heard in one window, and the receiver's counters over it.
    public struct Window: Sendable {
        /// What the receiver's loudspeaker played: `SpeechCallRun.passFrames` frames.
        public var received: [Int16]
        /// The receiver's counters over the window, and the sender's FEC plan.
        public var statistics: WindowStatistics
        /// The receiver's whole snapshot at the end of the window (cumulative since the call
        /// started), for figures the window's counters do not carry.
        public var receiverStatistics: CallMediaStatistics
        /// The receiver's snapshot at the window's start.
        public var receiverStatisticsAtStart: CallMediaStatistics

        /// The receiver's own quality estimate over the window alone
        /// (`CallMediaStatistics.quality(since:)`): the figure to set beside a score of `received`.
        public var quality: CallQualityEstimate? { receiverStatistics.quality(since: receiverStatisticsAtStart) }
    }

    /// One direction of the call: what was said, and what was heard in each pass.
    public struct Direction: Sendable {
        /// The fixture the sender said (its reference for scoring).
        public var speech: [Int16]
        /// The first pass: the call starting up.
        public var warmUp: Window
        /// The second pass: the call in its steady state.
        public var scored: Window
    }

    /// Frames in one pass (the longer fixture plus the gap); every window holds this many.
    public let passFrames: Int
    /// Samples in one frame.
    public let frameCount: Int
    /// Alice's fixture as Bob heard it.
    public let aliceToBob: Direction
    /// Bob's fixture as Alice heard it.
    public let bobToAlice: Direction
    /// The links, with what they injected (loss, reordering) over the whole call.
    public let links: (aliceToBob: SimulatedLink, bobToAlice: SimulatedLink)

    /// Runs the call: `alice` and `bob` are each side's fixture (mono, at the configuration's
    /// rate), `configuration` both sides' settings, `network` the impairments of both
    /// directions (nil: a clean link, delivered at once), each direction drawn from the
    /// seeded generator in turn (Alice → Bob first), so a seed gives the same network to
    /// every configuration.
    public init(alice: [Int16], bob: [Int16], configuration: MediaConfiguration, network: NetworkProfile?, seed: UInt64,
                gapMs: Int = 1_500, srtp: Bool = true) throws {
        let frameCount = configuration.samplesPerFrame
        let passFrames = Self.passFrames(speechSamples: max(alice.count, bob.count), configuration: configuration, gapMs: gapMs)
        var generator = SeededGenerator(seed: seed)
        let traces = network.map { profile -> (NetworkTrace, NetworkTrace) in
            let simulator = NetworkSimulator(profile: profile)
            let interval = Double(configuration.frameDurationMs)
            let forward = simulator.trace(packetCount: 2 * passFrames, packetIntervalMs: interval, using: &generator)
            let backward = simulator.trace(packetCount: 2 * passFrames, packetIntervalMs: interval, using: &generator)
            return (forward, backward)
        }
        let loop = try CallLoop(configuration: configuration, aliceToBob: SimulatedLink(trace: traces?.0),
                                bobToAlice: SimulatedLink(trace: traces?.1), srtp: srtp)
        // Each pass: the fixture, then silence to the pass's end.
        let say = { (speech: [Int16]) in { (index: Int, _: CallLoop.Side) in
            CallLoop.frame(index % passFrames, of: speech, length: frameCount)
        } }
        let aliceSays = say(alice)
        let bobSays = say(bob)
        var snapshots = [(alice: loop.alice.call.statistics, bob: loop.bob.call.statistics)]
        for _ in 0..<2 {
            loop.run(frames: passFrames, aliceMicrophone: aliceSays, bobMicrophone: bobSays)
            snapshots.append((loop.alice.call.statistics, loop.bob.call.statistics))
        }
        func window(_ pass: Int, receiver: CallLoop.Side, before: CallMediaStatistics, after: CallMediaStatistics,
                    senderBefore: CallMediaStatistics, senderAfter: CallMediaStatistics) -> Window {
            let start = pass * passFrames * frameCount
            return Window(
                received: Array(receiver.played[start..<(start + passFrames * frameCount)]),
                statistics: WindowStatistics(from: before.inbound, to: after.inbound,
                                             plannedLossPercentAtStart: senderBefore.outbound.plannedLossPercent,
                                             plannedLossPercentAtEnd: senderAfter.outbound.plannedLossPercent),
                receiverStatistics: after, receiverStatisticsAtStart: before)
        }
        aliceToBob = Direction(
            speech: alice,
            warmUp: window(0, receiver: loop.bob, before: snapshots[0].bob, after: snapshots[1].bob,
                           senderBefore: snapshots[0].alice, senderAfter: snapshots[1].alice),
            scored: window(1, receiver: loop.bob, before: snapshots[1].bob, after: snapshots[2].bob,
                           senderBefore: snapshots[1].alice, senderAfter: snapshots[2].alice))
        bobToAlice = Direction(
            speech: bob,
            warmUp: window(0, receiver: loop.alice, before: snapshots[0].alice, after: snapshots[1].alice,
                           senderBefore: snapshots[0].bob, senderAfter: snapshots[1].bob),
            scored: window(1, receiver: loop.alice, before: snapshots[1].alice, after: snapshots[2].alice,
                           senderBefore: snapshots[1].bob, senderAfter: snapshots[2].bob))
        self.passFrames = passFrames
        self.frameCount = frameCount
        links = (loop.aliceToBob, loop.bobToAlice)
    }

    /// Frames in one pass for the longer fixture's `speechSamples`: the fixture rounded up to
    /// whole frames, then the gap.
    public static func passFrames(speechSamples: Int, configuration: MediaConfiguration, gapMs: Int = 1_500) -> Int {
        let frameCount = configuration.samplesPerFrame
        return (max(0, speechSamples) + frameCount - 1) / frameCount + max(0, gapMs) / configuration.frameDurationMs
    }

    /// Both directions, Alice → Bob first.
    public var directions: [Direction] { [aliceToBob, bobToAlice] }
}
