// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import NetworkSimulation
import SRTP
import TestSupport

/// A long call on the virtual clock, for robustness rather than quality: two `CallMedia`
/// endpoints with SRTP, RTCP and the jitter buffer, speech both ways, through the simulator
/// with drift and outages added to the profile, frame by frame — the sequence numbers wrap
/// (and SRTP's rollover counter moves) every 21.8 minutes of 20 ms packets. What it checks is
/// gathered in `Report`: the jitter buffer's largest target, SRTP failures, packets received
/// around each wrap and in the last minute, and the heap at every checkpoint (the caller
/// measures memory; this type only calls `checkpoint` at the minutes it is asked for).
public struct SoakRun {
    /// What a run saw.
    public struct Report: Sendable {
        /// Frames run, each way.
        public var frames = 0
        /// The jitter buffer's largest target delay, ms, each way.
        public var largestTargetDelayMs = (aliceToBob: 0.0, bobToAlice: 0.0)
        /// SRTP authentication failures and replays at the receivers.
        public var authenticationFailures = 0
        public var replays = 0
        /// The largest mean jitter-buffer delay over any one minute, ms, each way: the buffer
        /// level drift would push up or down if the buffer did not follow it.
        public var largestMinuteBufferDelayMs = (aliceToBob: 0.0, bobToAlice: 0.0)
        /// Packets Bob received in the last minute, and Alice sent in it.
        public var lastMinuteReceived = 0
        public var lastMinuteSent = 0
        /// Times the senders' sequence numbers wrapped.
        public var sequenceWraps = 0
        /// Datagrams (RTP and RTCP) each direction's link dropped, outages included.
        public var linkDropped = (aliceToBob: 0, bobToAlice: 0)
        /// The receivers' final statistics.
        public var bob = CallMediaStatistics?.none
        public var alice = CallMediaStatistics?.none
    }

    /// Simulated length, minutes.
    public var minutes: Double
    /// The network profile (drift ± `driftPpm` added one way and the other).
    public var profile: NetworkProfile
    public var driftPpm: Double
    /// Outages added to both directions: start minute and length in seconds.
    public var outages: [(startMinute: Double, seconds: Double)]
    /// The calls' configuration (complexity 0 by default: a soak is about hours, not quality).
    public var configuration: MediaConfiguration
    public var seed: UInt64

    /// A run of `minutes` on `profile` with `driftPpm` of drift and `outages`.
    public init(minutes: Double, profile: NetworkProfile = .classE, driftPpm: Double = 500,
                outages: [(startMinute: Double, seconds: Double)] = [], seed: UInt64 = 1) {
        self.minutes = minutes
        self.profile = profile
        self.driftPpm = driftPpm
        self.outages = outages
        var configuration = MediaConfiguration()
        configuration.complexity = 0
        self.configuration = configuration
        self.seed = seed
    }

    /// The trace for one direction: the profile's, with the outages cut in.
    private func trace(frames: Int, drift: Double, seed: UInt64) -> NetworkTrace {
        var generator = SeededGenerator(seed: seed)
        let simulated = NetworkSimulator(profile: profile.withClockDrift(ppm: drift)).trace(packetCount: frames, using: &generator)
        let frameMs = Double(configuration.frameDurationMs)
        var packets = simulated.packets
        for outage in outages {
            let first = Int(outage.startMinute * 60_000 / frameMs), count = Int(outage.seconds * 1_000 / frameMs)
            for index in first..<min(packets.count, first + count) { packets[index].arrivalMs = nil }
        }
        return NetworkTrace(packets: packets)
    }

    /// Runs the call; `checkpoint(minute)` is called at every whole simulated minute.
    public func run(speech: [Int16], checkpoint: (Int, Report) -> Void = { _, _ in }) throws -> Report {
        let frames = Int(minutes * 60_000) / configuration.frameDurationMs
        let aliceKey = SRTPKeyingMaterial.random(profile: configuration.srtpProfile)
        let bobKey = SRTPKeyingMaterial.random(profile: configuration.srtpProfile)
        let alice = try CallMedia(configuration: configuration, sendingKey: aliceKey, receivingKey: bobKey, ssrc: 0xA11C, rtcpSeed: seed)
        let bob = try CallMedia(configuration: configuration, sendingKey: bobKey, receivingKey: aliceKey, ssrc: 0xB0B, rtcpSeed: seed &+ 1)
        let aliceToBob = SimulatedLink(trace: trace(frames: frames, drift: driftPpm, seed: seed), seed: seed)
        let bobToAlice = SimulatedLink(trace: trace(frames: frames, drift: -driftPpm, seed: seed &+ 7), seed: seed &+ 7)
        // The traces' arrival times are on the receivers' clocks, so drift reaches the jitter
        // buffers; the slow sender's packets start late by the drift of the whole run.
        let runMs = minutes * 60_000
        for (link, drift) in [(aliceToBob, driftPpm), (bobToAlice, -driftPpm)] {
            link.followsReceiverClock = true
            link.fixedDelayMs = max(0, -drift) / 1_000_000 * runMs
        }
        let frameCount = configuration.samplesPerFrame
        let frameMs = Double(configuration.frameDurationMs)
        var played = [Int16](repeating: 0, count: frameCount)
        var report = Report()
        var sentAtMinuteStart = 0, receivedAtMinuteStart = 0
        var bufferAtMinuteStart = (bob: (delay: 0.0, emitted: 0), alice: (delay: 0.0, emitted: 0))
        let framesPerMinute = 60_000 / configuration.frameDurationMs
        let wrapFrames = 65_536
        for tick in 0..<frames {
            let now = Double(tick) * frameMs
            aliceToBob.deliver(upTo: now, to: bob)
            bobToAlice.deliver(upTo: now, to: alice)
            let start = (tick * frameCount) % max(1, speech.count - frameCount)
            func runFrame(_ call: CallMedia, sendingOver link: SimulatedLink) {
                played.withUnsafeMutableBufferPointer { _ = call.render(into: $0, nowMs: now) }
                speech.withUnsafeBufferPointer { call.send(microphone: UnsafeBufferPointer(rebasing: $0[start..<(start + frameCount)])) }
                call.sendDatagrams(nowMs: now) { link.send($0, frameIndex: tick, sendMs: now) }
            }
            runFrame(alice, sendingOver: aliceToBob)
            runFrame(bob, sendingOver: bobToAlice)
            if tick > 0, tick % wrapFrames == 0 { report.sequenceWraps += 1 }
            if tick % 500 == 0 {
                let b = bob.statistics.inbound, a = alice.statistics.inbound
                report.largestTargetDelayMs.aliceToBob = max(report.largestTargetDelayMs.aliceToBob, b.jitterBufferTargetDelayMs)
                report.largestTargetDelayMs.bobToAlice = max(report.largestTargetDelayMs.bobToAlice, a.jitterBufferTargetDelayMs)
            }
            if (tick + 1) % framesPerMinute == 0 {
                let bobNow = bob.statistics, aliceNow = alice.statistics
                report.frames = tick + 1
                report.authenticationFailures = bobNow.transport.srtp.authFailures + aliceNow.transport.srtp.authFailures
                report.replays = bobNow.transport.srtp.replays + aliceNow.transport.srtp.replays
                func minuteMeanDelayMs(_ inbound: InboundRTPStatistics, since start: (delay: Double, emitted: Int)) -> Double {
                    let emitted = inbound.jitterBufferEmittedCount - start.emitted
                    return emitted > 0 ? (inbound.jitterBufferDelay - start.delay) / Double(emitted) * 1_000 : 0
                }
                report.largestMinuteBufferDelayMs.aliceToBob = max(report.largestMinuteBufferDelayMs.aliceToBob,
                                                                   minuteMeanDelayMs(bobNow.inbound, since: bufferAtMinuteStart.bob))
                report.largestMinuteBufferDelayMs.bobToAlice = max(report.largestMinuteBufferDelayMs.bobToAlice,
                                                                   minuteMeanDelayMs(aliceNow.inbound, since: bufferAtMinuteStart.alice))
                bufferAtMinuteStart = ((bobNow.inbound.jitterBufferDelay, bobNow.inbound.jitterBufferEmittedCount),
                                       (aliceNow.inbound.jitterBufferDelay, aliceNow.inbound.jitterBufferEmittedCount))
                report.lastMinuteReceived = bobNow.inbound.packetsReceived - receivedAtMinuteStart
                report.lastMinuteSent = aliceNow.outbound.packetsSent - sentAtMinuteStart
                receivedAtMinuteStart = bobNow.inbound.packetsReceived
                sentAtMinuteStart = aliceNow.outbound.packetsSent
                checkpoint((tick + 1) / framesPerMinute, report)
            }
        }
        report.frames = frames
        report.linkDropped = (aliceToBob.lost, bobToAlice.lost)
        report.bob = bob.statistics
        report.alice = alice.statistics
        report.authenticationFailures = (report.bob?.transport.srtp.authFailures ?? 0) + (report.alice?.transport.srtp.authFailures ?? 0)
        report.replays = (report.bob?.transport.srtp.replays ?? 0) + (report.alice?.transport.srtp.replays ?? 0)
        return report
    }
}
