import Dispatch
import Transport
#if VOICEENGINE_ADAPTIVE_JITTER_BUFFER
import JitterBuffer
import RTP
#endif

/// Ours: the `JitterBuffer` module's `AdaptiveJitterBuffer`, fed real RTP packets with Opus
/// payloads in arrival order and asked for one frame per 20 ms receiver tick.
///
/// Compiled only with `-Xswiftc -DVOICEENGINE_ADAPTIVE_JITTER_BUFFER` until the module's
/// `AdaptiveJitterBuffer` lands; without it ``replay(_:stream:tickMs:)`` returns nil and the
/// group compares speexdsp with the oracle only.
enum AdaptiveJitterBufferReplay {
    #if VOICEENGINE_ADAPTIVE_JITTER_BUFFER
    static let isAvailable = true

    /// Replays `trace`; a tick counts as concealed when its event is expand or comfort noise.
    static func replay(_ trace: NetworkTrace, stream: OpusPacketStream, tickMs: Double = 20) throws -> PlayoutRun? {
        let buffer = try AdaptiveJitterBuffer(configuration: JitterBufferConfiguration())
        let arrivals = trace.arrivals
        let packets = try arrivals.map { try stream.rtpPacket($0.sequence) }  // built outside the timing
        let pcm = UnsafeMutableBufferPointer<Int16>.allocate(capacity: OpusPacketStream.samplesPerFrame)
        defer { pcm.deallocate() }
        let endMs = (arrivals.last?.arrivalMs ?? 0) + 2_000
        var run = PlayoutRun()
        var next = 0
        var tick = 0
        var firstPlayTick: Int? = nil
        var lastPlayed = arrivals.first?.sequence ?? 0
        var concealedSinceLastPlay = 0
        while true {
            let now = Double(tick) * tickMs
            guard now <= endMs else { break }
            let start = DispatchTime.now().uptimeNanoseconds
            while next < arrivals.count, let arrival = arrivals[next].arrivalMs, arrival <= now {
                try packets[next].withUnsafeBytes { bytes in
                    buffer.insert(try RTPPacketView(bytes), arrivalTimeMs: arrival)
                }
                next += 1
            }
            let event = buffer.nextFrame(into: pcm, nowMs: now)
            run.elapsedNanoseconds += Double(DispatchTime.now().uptimeNanoseconds - start)

            if let rtpSequence = event.sequenceNumber {
                let played = OpusPacketStream.traceSequence(rtp: rtpSequence, near: lastPlayed)
                lastPlayed = played
                run.playTimeMs[played] = now
                if let first = firstPlayTick {
                    run.concealedTicks += concealedSinceLastPlay
                    run.activeTicks = tick - first + 1
                } else {
                    firstPlayTick = tick
                    run.activeTicks = 1
                }
                concealedSinceLastPlay = 0
            } else if firstPlayTick != nil && (event.kind == .expand || event.kind == .comfortNoise) {
                concealedSinceLastPlay += 1
            }
            tick += 1
        }
        run.ticks = tick
        return run
    }
    #else
    static let isAvailable = false

    /// Always nil: built without `VOICEENGINE_ADAPTIVE_JITTER_BUFFER`.
    static func replay(_ trace: NetworkTrace, stream: OpusPacketStream, tickMs: Double = 20) throws -> PlayoutRun? { nil }
    #endif
}
