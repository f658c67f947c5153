// SPDX-License-Identifier: Apache-2.0
import CSpeexDSP
import Dispatch
import NetworkSimulation
import Opus

/// The baseline: speexdsp 1.2.1's jitter buffer (`jitter_buffer_put/get/tick`) followed by the
/// same Opus decoder (decode on a packet, PLC otherwise), so its CPU per tick is comparable.
///
/// Timestamps are in 48 kHz samples, the Opus RTP clock, as deployed speex users (Mumble) feed
/// it: a packet's is its trace sequence × 960, span 960, step 960. Every 20 ms receiver tick:
/// put each packet whose arrival time has come, in arrival order, then `jitter_buffer_get`
/// one 20 ms frame, then `jitter_buffer_tick`.
///
/// The unit matters: speex clamps a packet's lateness to ±32767 timestamp units (682 ms in
/// samples, 32 s in milliseconds) and some of its constants are in timestamp units, so on the
/// same traces milliseconds give it a higher delay on the heavy-tailed classes and a lower
/// one on the spike trace.
public enum SpeexJitterBaseline {
    /// Timestamp units per 20 ms frame (48 kHz samples).
    public static let step: Int32 = 960

    /// Replays `trace` and records when each packet played.
    /// - Throws: `JitterBufferEvaluationError.baselineCreationFailed` if speexdsp refuses to
    ///   start, or the decoder's error.
    public static func replay(_ trace: NetworkTrace, stream: OpusPacketStream, tickMs: Double = 20) throws -> PlayoutRun {
        guard let jitter = jitter_buffer_init(step) else { throw JitterBufferEvaluationError.baselineCreationFailed("jitter_buffer_init") }
        defer { jitter_buffer_destroy(jitter) }
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        let pcm = UnsafeMutableBufferPointer<Int16>.allocate(capacity: OpusPacketStream.samplesPerFrame)
        defer { pcm.deallocate() }
        let received = UnsafeMutableBufferPointer<CChar>.allocate(capacity: 1_500)
        defer { received.deallocate() }

        let arrivals = trace.arrivals
        let endMs = (arrivals.last?.arrivalMs ?? 0) + 2_000
        var run = PlayoutRun()
        var next = 0
        var tick = 0
        while true {
            let now = Double(tick) * tickMs
            guard now <= endMs else { break }
            let start = DispatchTime.now().uptimeNanoseconds
            while next < arrivals.count, let arrival = arrivals[next].arrivalMs, arrival <= now {
                let sequence = arrivals[next].sequence
                stream.payloads[sequence % stream.payloads.count].withUnsafeBytes { payload in
                    var packet = JitterBufferPacket(
                        data: UnsafeMutablePointer(mutating: payload.baseAddress!.assumingMemoryBound(to: CChar.self)),
                        len: UInt32(payload.count), timestamp: UInt32(truncatingIfNeeded: sequence) &* UInt32(step), span: UInt32(step),
                        sequence: UInt16(truncatingIfNeeded: sequence), user_data: UInt32(sequence))
                    jitter_buffer_put(jitter, &packet)
                }
                next += 1
            }
            var packet = JitterBufferPacket(data: received.baseAddress, len: UInt32(received.count), timestamp: 0, span: 0,
                                            sequence: 0, user_data: 0)
            var offset: Int32 = 0
            let status = jitter_buffer_get(jitter, &packet, step, &offset)
            var played: Int? = nil
            if status == JITTER_BUFFER_OK {
                played = Int(packet.timestamp / UInt32(step))
                _ = try decoder.decode(UnsafeRawBufferPointer(start: received.baseAddress, count: Int(packet.len)), into: pcm)
            } else {
                _ = try decoder.conceal(into: pcm)
            }
            jitter_buffer_tick(jitter)
            run.elapsedNanoseconds += Double(DispatchTime.now().uptimeNanoseconds - start)

            run.recordTick(tick, nowMs: now, played: played.map { $0...$0 }, concealed: true)
            tick += 1
        }
        run.ticks = tick
        return run
    }
}
