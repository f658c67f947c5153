// SPDX-License-Identifier: Apache-2.0
import AudioCodecs
import Foundation
import RTP
import Testing
import TestSupport
@testable import JitterBuffer

/// A decoder per negotiated payload type: a sender switching between the codecs of an answer
/// (RFC 3264 §5.1) is played by the right decoder from its first packet on, without a gap —
/// onto another RTP clock too (placed by sequence number); a payload type outside the answer
/// is counted, never played.
@Suite struct PayloadTypeSwitchTests {
    typealias F = StreamFixture
    typealias Segment = (codec: AudioCodec, payloadType: UInt8, count: Int)

    /// A buffer for `payloadTypes`, holding at least `minimumDelayMs` of packets.
    static func buffer(_ codec: AudioCodec, _ payloadTypes: [UInt8: AudioCodec], minimumDelayMs: Int = 0) throws -> AdaptiveJitterBuffer {
        var configuration = JitterBufferConfiguration()
        configuration.codec = codec
        configuration.payloadTypes = payloadTypes
        configuration.minimumDelayMs = minimumDelayMs
        configuration.initialDelayMs = max(40, minimumDelayMs)
        return try AdaptiveJitterBuffer(configuration: configuration)
    }

    /// Plays `segments` as one RTP stream (sequence numbers and timestamps going on, ticks at
    /// each segment's codec clock), one packet each 20 ms; what was played, per packet tick.
    static func play(_ segments: [Segment], into buffer: AdaptiveJitterBuffer) throws -> [[Int16]] {
        var frames: [[Int16]] = [], pcm = [Int16](repeating: 0, count: 960)
        var index = 0, timestamp: UInt32 = 90_000
        for (segmentIndex, segment) in segments.enumerated() {
            // A sender may count on, or start the new clock's timestamps anywhere (RFC 3550
            // leaves it open): here one that jumps when the clock changes.
            if segmentIndex > 0, segments[segmentIndex - 1].codec.rtpClockRate != segment.codec.rtpClockRate { timestamp &+= 1_234_567 }
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

    /// Opus (48 kHz clock) then PCMU (8 kHz) and back: the first packet on the other clock is
    /// placed by its sequence number (its timestamps cannot be compared with the stream's) and
    /// the stream goes on in its clock: nothing discarded, nothing concealed. (A restart there
    /// dropped the Opus packets still stored and waited the initial delay again.)
    @Test(arguments: [false, true])
    func aSwitchToAnotherClockPlaysOnWithoutAGap(andBack: Bool) throws {
        // Three packets stored when the first on the new clock arrives: a restart would drop them.
        let buffer = try Self.buffer(.opus, [111: .opus, 0: .pcmu], minimumDelayMs: 60)
        let frames = try Self.play([(.opus, 111, 50), (.pcmu, 0, 60)] + (andBack ? [(.opus, 111, 40)] : []), into: buffer)
        #expect(buffer.statistics.packetsDiscarded == 0)
        #expect(buffer.statistics.concealedSamples == 0, "concealed \(buffer.statistics.concealedSamples)")
        #expect(buffer.statistics.flushes == 0)
        // Every frame around the switch plays the tone: no re-buffering silence.
        #expect(frames[40..<70].allSatisfy { frame in frame.contains { abs($0) > 2_000 } }, "a silent frame at the switch")
        let before = Self.toneLevel(frames[20..<45]), after = Self.toneLevel(frames[70..<110])
        #expect(before > 6_000 && before < 10_000, "Opus: \(before)")
        #expect(after > 7_000 && after < 9_000, "PCMU after the switch: \(after)")
        if andBack {
            let back = Self.toneLevel(frames[120..<150])
            #expect(back > 6_000 && back < 10_000, "Opus again: \(back)")
        }
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
