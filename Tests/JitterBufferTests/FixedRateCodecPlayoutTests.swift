// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import RTP
import Testing
import TestSupport
@testable import JitterBuffer

/// The jitter buffer on G.711 and G.722: RTP timestamps on the codec's 8 kHz clock become
/// samples at the output rate (48 kHz, and G.722's 16 kHz samples per 8 kHz tick), a steady
/// stream plays every packet in order without concealment, a lost one is concealed, and a
/// payload no decoder takes is counted, not played.
@Suite struct FixedRateCodecPlayoutTests {
    typealias F = StreamFixture

    static func buffer(_ codec: AudioCodec) throws -> AdaptiveJitterBuffer {
        var configuration = JitterBufferConfiguration()
        configuration.codec = codec
        configuration.initialDelayMs = 40
        return try AdaptiveJitterBuffer(configuration: configuration)
    }

    /// 20 ms packets of a 1 kHz tone, coded as a 48 kHz call's uplink codes them.
    static func payloads(_ codec: AudioCodec, count: Int) throws -> [[UInt8]] {
        let encoder = try codec.makeEncoder(sampleRate: 48_000)
        var payload = [UInt8](repeating: 0, count: 400)
        return try (0..<count).map { index in
            let pcm = (0..<960).map { Int16(8_000 * sin(2 * Double.pi * 1_000 * Double(index * 960 + $0) / 48_000)) }
            let bytes = try pcm.withUnsafeBufferPointer { pcm in try payload.withUnsafeMutableBytes { try encoder.encode(pcm, into: $0) } }
            return Array(payload.prefix(bytes))
        }
    }

    @Test(arguments: [AudioCodec.pcmu, .pcma, .g722])
    func aSteadyStreamPlaysEveryPacketInOrder(codec: AudioCodec) throws {
        let buffer = try Self.buffer(codec)
        let payloads = try Self.payloads(codec, count: 100)
        var pcm = [Int16](repeating: 0, count: 960), played: [Int16] = [], sequences: [UInt16] = []
        for (index, payload) in payloads.enumerated() {
            // 160 ticks of the 8 kHz clock per 20 ms packet, G.722 included (RFC 3551).
            let bytes = F.rtp(sequence: UInt16(500 + index), timestamp: UInt32(8_000 + 160 * index), payloadType: codec.staticPayloadType!,
                              payload: payload)
            bytes.withUnsafeBytes { raw in
                if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: Double(index) * 20 + 5) }
            }
            let event = pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: Double(index) * 20 + 10) }
            if let sequence = event.sequenceNumber { sequences.append(sequence) }
            played += pcm
        }
        #expect(buffer.statistics.concealedSamples == 0, "\(codec): concealed \(buffer.statistics.concealedSamples)")
        #expect(buffer.statistics.packetsDiscarded == 0)
        #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "in order, none skipped")
        #expect(sequences.count > 90)
        let level = SignalComparison.toneAmplitude(played.suffix(48_000), frequencyHz: 1_000, sampleRate: 48_000)
        #expect(level > 7_000 && level < 9_000, "\(codec): the tone at \(level)")
    }

    @Test(arguments: [AudioCodec.pcmu, .g722])
    func aLostPacketIsConcealedAndABrokenOneCounted(codec: AudioCodec) throws {
        let buffer = try Self.buffer(codec)
        let payloads = try Self.payloads(codec, count: 60)
        var pcm = [Int16](repeating: 0, count: 960)
        for (index, payload) in payloads.enumerated() where index != 30 {
            // Packet 40 arrives empty: no G.711/G.722 payload is; packet 41 holds 200 ms.
            let body = index == 40 ? [] : index == 41 ? [UInt8](repeating: 0xD5, count: 1_600) : payload
            let bytes = F.rtp(sequence: UInt16(index), timestamp: UInt32(160 * index), payloadType: codec.staticPayloadType!, payload: body)
            bytes.withUnsafeBytes { raw in
                if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: Double(index) * 20 + 5) }
            }
            _ = pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: Double(index) * 20 + 10) }
        }
        #expect(buffer.statistics.packetsDiscarded == 2, "the empty and the oversized payload")
        #expect(buffer.statistics.concealmentEvents >= 2, "packet 30 lost, 40 and 41 unusable")
        #expect(buffer.statistics.concealedSamples >= 3 * 960)
    }

    /// Opus decoded at 16 kHz: its RTP clock stays 48 kHz (RFC 7587), 960 ticks a packet for
    /// 320 samples. Before timestamps were converted, they were taken as samples and every
    /// packet seemed to start 640 samples after the last one ended.
    @Test func opusDecodedBelowItsClockRatePlaysEveryPacket() throws {
        var configuration = JitterBufferConfiguration()
        configuration.sampleRate = 16_000
        configuration.initialDelayMs = 40
        let buffer = try AdaptiveJitterBuffer(configuration: configuration)
        var pcm = [Int16](repeating: 0, count: 320)
        var sequences: [UInt16] = []
        for (index, delivery) in F.stream(count: 100).enumerated() {
            delivery.bytes.withUnsafeBytes { raw in
                if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: delivery.arrivalMs) }
            }
            let event = pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: Double(index) * 20 + 10) }
            if let sequence = event.sequenceNumber { sequences.append(sequence) }
        }
        #expect(buffer.statistics.concealedSamples == 0, "concealed \(buffer.statistics.concealedSamples)")
        #expect(sequences.count > 90 && zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 })
    }
}
