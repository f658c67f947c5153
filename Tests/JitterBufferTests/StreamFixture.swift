// SPDX-License-Identifier: Apache-2.0
import Foundation
import JitterBuffer
import JitterBufferEvaluation
import Opus
import RTP
import TestSupport

/// Test material: real Opus packets (a synthetic voice, 20 ms, FEC on; encoded and wrapped in
/// RTP by `OpusPacketStream`), and a virtual-clock loop that delivers them at chosen arrival
/// times and pulls a frame per tick.
enum StreamFixture {
    static let sampleRate = 48_000
    static let frameSamples = 960
    static let frameMs = 20.0

    /// A voiced signal: a 120–160 Hz glottal-like harmonic series with syllable envelopes
    /// (never fully silent, so Opus VAD keeps coding it as speech and sends LBRR).
    static func voice(frameCount: Int, seed: UInt64 = 1) -> [Int16] {
        var generator = SeededGenerator(seed: seed)
        var phase = 0.0
        return (0..<(frameCount * frameSamples)).map { n in
            let t = Double(n) / Double(sampleRate)
            let f0 = 140 + 20 * sin(2 * .pi * 2.7 * t)
            phase += 2 * .pi * f0 / Double(sampleRate)
            var value = 0.0
            for harmonic in 1...12 { value += sin(Double(harmonic) * phase) / Double(harmonic) }
            let envelope = 0.45 + 0.55 * abs(sin(2 * .pi * 2 * t))
            let noise = Double.random(in: -1...1, using: &generator) * 0.02
            return Int16(clamping: Int(6_000 * envelope * (value + noise)))
        }
    }

    /// Opus payloads of `pcm`, one per 20 ms, VoIP at 24 kb/s with in-band FEC (20 % expected loss).
    static func encode(_ pcm: [Int16], fec: Bool = true) throws -> [[UInt8]] {
        try OpusPacketStream(pcm: pcm, frameCount: pcm.count / frameSamples,
                             encoding: .init(inbandFEC: fec, expectedLossPercent: fec ? 20 : 0)).payloads
    }

    /// 2 s of encoded voice, shared by the tests.
    static let payloads: [[UInt8]] = (try? encode(voice(frameCount: 100))) ?? []
    /// The same without FEC (a lost packet can only be concealed).
    static let payloadsWithoutFEC: [[UInt8]] = (try? encode(voice(frameCount: 100), fec: false)) ?? []
    /// Talk: the same voice with a pause in every 2 s (frames 80–99 of each 100 are silent),
    /// as speech has, where a time-stretch is not heard.
    static func talk(frameCount: Int) -> [Int16] {
        var pcm = voice(frameCount: frameCount)
        for frame in 0..<frameCount where frame % 100 >= 80 {
            for index in (frame * frameSamples)..<((frame + 1) * frameSamples) { pcm[index] = 0 }
        }
        return pcm
    }
    /// 2 s of encoded talk (ending in its pause), with FEC.
    static let talkPayloads: [[UInt8]] = (try? encode(talk(frameCount: 100))) ?? []
    /// An Opus DTX packet: a TOC byte alone (SILK wideband 20 ms, no frame data).
    static let dtxPayload: [UInt8] = [9 << 3]

    /// An RTP packet (version 2, no CSRC, no extension).
    static func rtp(sequence: UInt16, timestamp: UInt32, ssrc: UInt32 = 0x1234_5678, payloadType: UInt8 = 111, payload: [UInt8]) -> [UInt8] {
        OpusPacketStream.rtpPacket(sequenceNumber: sequence, timestamp: timestamp, ssrc: ssrc, payloadType: payloadType, payload: payload)
    }

    /// A packet scheduled for delivery.
    struct Delivery {
        var arrivalMs: Double
        var bytes: [UInt8]
        /// When the sender sent it (for playout-delay measurements).
        var sendMs: Double = 0
    }

    /// Packets `0..<count` of one stream, sent every 20 ms from `firstSequence`/`firstTimestamp`,
    /// arriving `delayMs` after sending: the voice (with or without FEC), or the talk.
    static func stream(count: Int, firstSequence: UInt16 = 1_000, firstTimestamp: UInt32 = 50_000,
                       ssrc: UInt32 = 0x1234_5678, startMs: Double = 0, delayMs: Double = 5, fec: Bool = true,
                       talk: Bool = false) -> [Delivery] {
        let source = talk ? talkPayloads : fec ? payloads : payloadsWithoutFEC
        return (0..<count).map { index in
            let send = startMs + Double(index) * frameMs
            let bytes = rtp(sequence: firstSequence &+ UInt16(truncatingIfNeeded: index),
                            timestamp: firstTimestamp &+ UInt32(truncatingIfNeeded: index * frameSamples),
                            ssrc: ssrc, payload: source[index % source.count])
            return Delivery(arrivalMs: send + delayMs, bytes: bytes, sendMs: send)
        }
    }

    /// A buffer with a fixed target (minimum = maximum = initial = `delayMs`).
    static func fixedDelayBuffer(delayMs: Int = 45, capacity: Int = 256) throws -> AdaptiveJitterBuffer {
        var configuration = JitterBufferConfiguration()
        configuration.minimumDelayMs = delayMs
        configuration.maximumDelayMs = delayMs
        configuration.initialDelayMs = delayMs
        configuration.capacityPackets = capacity
        return try AdaptiveJitterBuffer(configuration: configuration)
    }

    /// An adaptive buffer starting at `delayMs` and never below it (the estimate may raise the
    /// target from the 10th packet)
    /// whose histogram may still learn delays up to the default 1 s, with `policy`.
    static func adaptiveBuffer(delayMs: Int = 45, policy: LatePacketPolicy = .recoverFromFECFirst) throws -> AdaptiveJitterBuffer {
        var configuration = JitterBufferConfiguration()
        configuration.minimumDelayMs = delayMs
        configuration.initialDelayMs = delayMs
        configuration.latePacketPolicy = policy
        return try AdaptiveJitterBuffer(configuration: configuration)
    }

    /// One tick's outcome.
    struct Tick {
        var nowMs: Double
        var event: PlayoutEvent
        var pcm: [Int16]
    }

    /// Runs `ticks` ticks of 20 ms (or of `tickSamples`, through `nextSamples`) on a virtual
    /// clock: before each tick, inserts every delivery that has arrived (in arrival order, ties
    /// in list order).
    static func run(_ buffer: AdaptiveJitterBuffer, deliveries: [Delivery], ticks: Int, tickSamples: Int = frameSamples,
                    keepAudio: Bool = false) -> [Tick] {
        let ordered = deliveries.enumerated().sorted { ($0.element.arrivalMs, $0.offset) < ($1.element.arrivalMs, $1.offset) }.map(\.element)
        var next = 0
        var pcm = [Int16](repeating: 0, count: tickSamples)
        var result: [Tick] = []
        let tickMs = frameMs * Double(tickSamples) / Double(frameSamples)
        for tick in 0..<ticks {
            let now = Double(tick) * tickMs
            while next < ordered.count && ordered[next].arrivalMs <= now {
                ordered[next].bytes.withUnsafeBytes { raw in
                    if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: ordered[next].arrivalMs) }
                }
                next += 1
            }
            let event = pcm.withUnsafeMutableBufferPointer {
                tickSamples == frameSamples ? buffer.nextFrame(into: $0, nowMs: now) : buffer.nextSamples(into: $0, nowMs: now)
            }
            result.append(Tick(nowMs: now, event: event, pcm: keepAudio ? pcm : []))
        }
        return result
    }

    /// Sequence numbers that started playing, in order (as each tick reports them: the first
    /// that started; see `allStarted` for every one).
    static func played(_ ticks: [Tick]) -> [UInt16] { ticks.compactMap(\.event.sequenceNumber) }

    /// Every sequence number that started, expanding each tick's first…last range.
    static func allStarted(_ ticks: [Tick]) -> [UInt16] {
        ticks.flatMap { tick -> [UInt16] in
            guard let first = tick.event.sequenceNumber, let last = tick.event.lastSequenceNumber else { return [] }
            return (0...Int(last &- first)).map { first &+ UInt16($0) }
        }
    }
}
