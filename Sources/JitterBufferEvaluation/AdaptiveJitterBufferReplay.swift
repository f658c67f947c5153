// SPDX-License-Identifier: Apache-2.0
import Dispatch
import JitterBuffer
import NetworkSimulation
import RTP

/// Ours: the `JitterBuffer` module's `AdaptiveJitterBuffer`, fed real RTP packets with Opus
/// payloads in arrival order and asked for one frame per receiver tick (a frame's duration),
/// or for a device period's samples per shorter tick.
public enum AdaptiveJitterBufferReplay {
    /// Replays `trace` with `policy` for overtaken packets; a tick counts as concealed when its
    /// event is expand or comfort noise.
    public static func replay(_ trace: NetworkTrace, stream: OpusPacketStream, policy: LatePacketPolicy,
                              tickSamples: Int? = nil) throws -> PlayoutRun {
        var configuration = JitterBufferConfiguration()
        configuration.latePacketPolicy = policy
        return try replay(trace, stream: stream, configuration: configuration, tickSamples: tickSamples)
    }

    /// Replays `trace` into a buffer of `configuration` (48 kHz; its frame duration is the
    /// stream's), handing every tick's frame to `onFrame` (outside the timing): what a listener
    /// of that receiver hears, from tick 0 (the first packet's send time) on. With `tickSamples`
    /// (nil: a frame) less than a frame, each
    /// tick plays that many samples (`nextSamples`: a receiver playing a device period at a
    /// time) and ticks come as often. `arrivalsAtTicks`: each packet is inserted with the tick
    /// that takes it in as its arrival time, as a call's audio side does (it sees packets only
    /// when it renders), instead of its arrival on the trace.
    public static func replay(_ trace: NetworkTrace, stream: OpusPacketStream, configuration: JitterBufferConfiguration,
                              tickSamples: Int? = nil, arrivalsAtTicks: Bool = false,
                              onFrame: (UnsafeBufferPointer<Int16>) -> Void = { _ in }) throws -> PlayoutRun {
        let tickSamples = tickSamples ?? stream.samplesPerPacket
        precondition((1...stream.samplesPerPacket).contains(tickSamples), "tickSamples must be 1 to a frame")
        let isFrameTick = tickSamples == stream.samplesPerPacket
        let tickMs = Double(tickSamples) / 48
        var configuration = configuration
        configuration.frameDurationMs = stream.frameDurationMs
        let buffer = try AdaptiveJitterBuffer(configuration: configuration)
        let arrivals = trace.arrivals
        let packets = arrivals.map { stream.rtpPacket($0.sequence) }  // built outside the timing
        let pcm = UnsafeMutableBufferPointer<Int16>.allocate(capacity: tickSamples)
        defer { pcm.deallocate() }
        let endMs = (arrivals.last?.arrivalMs ?? 0) + 2_000
        var run = PlayoutRun()
        var next = 0
        var tick = 0
        var lastPlayed = arrivals.first?.sequence ?? 0
        while true {
            let now = Double(tick) * tickMs
            guard now <= endMs else { break }
            let start = DispatchTime.now().uptimeNanoseconds
            while next < arrivals.count, let arrival = arrivals[next].arrivalMs, arrival <= now {
                try packets[next].withUnsafeBytes { bytes in
                    buffer.insert(try RTPPacketView(bytes), arrivalTimeMs: arrivalsAtTicks ? now : arrival)
                }
                next += 1
            }
            let event = isFrameTick ? buffer.nextFrame(into: pcm, nowMs: now) : buffer.nextSamples(into: pcm, nowMs: now)
            run.elapsedNanoseconds += Double(DispatchTime.now().uptimeNanoseconds - start)
            onFrame(UnsafeBufferPointer(pcm))
            if event.kind == .accelerate || event.kind == .preemptiveExpand { run.stretchedTicks += 1 }

            if event.kind == .fecRecovery {
                // Played from the FEC copy in the next packet, not from its own payload: for a
                // like-for-like comparison with speex and the oracle (neither uses FEC) the packet
                // counts as not played on time, and the recovery is tallied separately.
                run.fecRecoveredTicks += 1
                if let rtpSequence = event.sequenceNumber {
                    let recovered = OpusPacketStream.traceSequence(rtp: rtpSequence, near: lastPlayed)
                    run.fecRecoveredSequences.insert(recovered)
                    lastPlayed = max(lastPlayed, recovered)
                }
                run.recordTick(tick, nowMs: now, played: nil, concealed: true)
            } else if let rtpSequence = event.sequenceNumber {
                // Accelerate may start several packets in one tick: first…last all started now.
                let first = OpusPacketStream.traceSequence(rtp: rtpSequence, near: lastPlayed)
                let last = event.lastSequenceNumber.map { OpusPacketStream.traceSequence(rtp: $0, near: first) } ?? first
                lastPlayed = max(first, last)
                run.recordTick(tick, nowMs: now, played: first...lastPlayed, concealed: false)
            } else {
                run.recordTick(tick, nowMs: now, played: nil, concealed: event.kind == .expand || event.kind == .comfortNoise)
            }
            tick += 1
        }
        run.ticks = tick
        run.learntDelays = buffer.learntDelays
        return run
    }
}
