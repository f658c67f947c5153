// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import RTP
import Testing
import TestSupport
@testable import JitterBuffer

/// A decoder per negotiated payload type: a sender switching between the codecs of an answer
/// (RFC 3264 §5.1) is played by the right decoder from its first packet on; on one RTP clock
/// the stream goes on without a gap, onto another it restarts; a payload type outside the
/// answer is counted, never played.
@Suite struct PayloadTypeSwitchTests {
    typealias F = StreamFixture
    typealias Segment = (codec: AudioCodec, payloadType: UInt8, count: Int)

    static func buffer(_ codec: AudioCodec, _ payloadTypes: [UInt8: AudioCodec]) throws -> AdaptiveJitterBuffer {
        var configuration = JitterBufferConfiguration()
        configuration.codec = codec
        configuration.payloadTypes = payloadTypes
        configuration.initialDelayMs = 40
        return try AdaptiveJitterBuffer(configuration: configuration)
    }

    /// Plays `segments` as one RTP stream (sequence numbers and timestamps going on, ticks at
    /// each segment's codec clock), one packet each 20 ms; what was played, per packet tick.
    static func play(_ segments: [Segment], into buffer: AdaptiveJitterBuffer) throws -> [[Int16]] {
        var frames: [[Int16]] = [], pcm = [Int16](repeating: 0, count: 960)
        var index = 0, timestamp: UInt32 = 90_000
        for segment in segments {
            for payload in try FixedRateCodecPlayoutTests.payloads(segment.codec, count: segment.count) {
                let bytes = F.rtp(sequence: UInt16(truncatingIfNeeded: 700 + index), timestamp: timestamp, payloadType: segment.payloadType,
                                  payload: payload)
                bytes.withUnsafeBytes { raw in
                    if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: Double(index) * 20 + 5) }
                }
                _ = pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: Double(index) * 20 + 10) }
                frames.append(pcm)
                timestamp &+= UInt32(segment.codec.rtpClockRate / 50)
                index += 1
            }
        }
        return frames
    }

    static func toneLevel(_ frames: ArraySlice<[Int16]>) -> Double {
        SignalComparison.toneAmplitude(Array(frames.joined()), frequencyHz: 1_000, sampleRate: 48_000)
    }

    /// PCMU then PCMA (one 8 kHz clock): every packet played, none concealed, the tone intact
    /// on both sides of the switch. (Before, the PCMU decoder decoded PCMA too: noise.)
    @Test(arguments: [AudioCodec.pcma, .g722])
    func aSwitchOnOneClockPlaysOnWithoutAGap(to codec: AudioCodec) throws {
        let buffer = try Self.buffer(.pcmu, [0: .pcmu, 8: .pcma, 9: .g722])
        let frames = try Self.play([(.pcmu, 0, 50), (codec, codec.staticPayloadType!, 50)], into: buffer)
        #expect(buffer.statistics.concealedSamples == 0, "concealed \(buffer.statistics.concealedSamples)")
        #expect(buffer.statistics.packetsDiscarded == 0)
        let before = Self.toneLevel(frames[20..<45]), after = Self.toneLevel(frames[65..<100])
        #expect(before > 7_000 && before < 9_000, "PCMU: \(before)")
        #expect(after > 7_000 && after < 9_000, "\(codec): \(after)")
    }

    /// Opus (48 kHz clock) then PCMU (8 kHz): the PCMU packets start the stream afresh (their
    /// timestamps cannot be placed on the Opus timeline) and play; nothing is discarded.
    @Test func aSwitchToAnotherClockRestartsTheStream() throws {
        let buffer = try Self.buffer(.opus, [111: .opus, 0: .pcmu])
        let frames = try Self.play([(.opus, 111, 50), (.pcmu, 0, 60)], into: buffer)
        #expect(buffer.statistics.packetsDiscarded == 0)
        let before = Self.toneLevel(frames[20..<45]), after = Self.toneLevel(frames[70..<110])
        #expect(before > 6_000 && before < 10_000, "Opus: \(before)")
        #expect(after > 7_000 && after < 9_000, "PCMU after the restart: \(after)")
    }

    /// A payload type the answer did not list (PCMA, 8) is discarded and counted; the PCMU
    /// packets around it play.
    @Test func anUnlistedPayloadTypeIsCountedNotPlayed() throws {
        let buffer = try Self.buffer(.pcmu, [0: .pcmu])
        let frames = try Self.play([(.pcmu, 0, 40), (.pcma, 8, 5), (.pcmu, 0, 40)], into: buffer)
        #expect(buffer.statistics.packetsDiscarded == 5)
        let after = Self.toneLevel(frames[60..<85])
        #expect(after > 7_000 && after < 9_000, "PCMU after the stray packets: \(after)")
    }

    /// Without payload types every packet is the configured codec, as before.
    @Test func withoutPayloadTypesEveryPacketIsTheCodec() throws {
        let buffer = try Self.buffer(.pcmu, [:])
        _ = try Self.play([(.pcmu, 96, 30)], into: buffer)
        #expect(buffer.statistics.packetsDiscarded == 0 && buffer.statistics.concealedSamples == 0)
    }

    @Test func aConfigurationThatCannotPlayItsCodecIsRefused() {
        #expect(throws: JitterBufferError.codecWithoutPayloadType(.opus)) { try Self.buffer(.opus, [0: .pcmu]) }
        #expect(throws: JitterBufferError.invalidPayloadType(200)) { try Self.buffer(.pcmu, [0: .pcmu, 200: .pcma]) }
    }
}
