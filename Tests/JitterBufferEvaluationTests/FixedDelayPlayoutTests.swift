// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Opus
import RTP
import Testing
import JitterBufferEvaluation

/// `FixedDelayPlayout`: the oracle's audio.
@Suite struct FixedDelayPlayoutTests {
    static let stream = try? OpusPacketStream(pcm: (0..<9_600).map { Int16(truncatingIfNeeded: ($0 * 37) % 4_000 - 2_000) },
                                              frameCount: 20, encoding: .init())

    static func trace(arrivals: [Double?]) -> NetworkTrace {
        NetworkTrace(packets: arrivals.enumerated().map { TracePacket(sequence: $0.offset, sendMs: Double($0.offset) * 20, arrivalMs: $0.element) })
    }

    /// Every packet on time: `delayMs` of silence, then exactly libopus decoding them in order.
    @Test func onTimePacketsPlayAsDecodedAfterTheDelay() throws {
        let stream = try #require(Self.stream)
        let playout = try FixedDelayPlayout(Self.trace(arrivals: (0..<20).map { Double($0) * 20 + 5 }), stream: stream, delayMs: 10)
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        var expected: [Int16] = []
        var frame = [Int16](repeating: 0, count: 960)
        for sequence in 0..<20 {
            _ = try stream.payload(sequence).withUnsafeBytes { payload in try frame.withUnsafeMutableBufferPointer { try decoder.decode(payload, into: $0) } }
            expected += frame
        }
        #expect(playout.pcm.count == 480 + 20 * 960)
        #expect(playout.pcm.prefix(480).allSatisfy { $0 == 0 })
        #expect(Array(playout.pcm.dropFirst(480)) == expected)
        #expect(playout.decodedPackets == 20 && playout.concealedPackets == 0 && playout.fecRecoveredPackets == 0)
    }

    /// A packet lost and one arriving after its play time are both concealed; the rest decode.
    @Test func lostAndLatePacketsAreConcealed() throws {
        let stream = try #require(Self.stream)
        var arrivals: [Double?] = (0..<20).map { Double($0) * 20 + 5 }
        arrivals[5] = nil
        arrivals[9] = 9 * 20 + 50  // 50 ms late against a 10 ms playout delay
        let playout = try FixedDelayPlayout(Self.trace(arrivals: arrivals), stream: stream, delayMs: 10)
        #expect(playout.decodedPackets == 18)
        #expect(playout.concealedPackets + playout.fecRecoveredPackets == 2)
    }

    /// A stream of 10 ms packets (`--ptime 10` of the listening benchmark): each payload says
    /// 10 ms, RTP timestamps step by 480, and the oracle plays 480 samples per packet.
    @Test func tenMillisecondPacketsPlayTenMillisecondsEach() throws {
        let pcm = (0..<9_600).map { Int16(truncatingIfNeeded: ($0 * 37) % 4_000 - 2_000) }
        let stream = try OpusPacketStream(pcm: pcm, frameCount: 20, encoding: .init(), frameDurationMs: 10)
        #expect(stream.samplesPerPacket == 480 && stream.frameDurationMs == 10)
        let info = try stream.payload(3).withUnsafeBytes { try OpusPacketInfo(packet: $0, sampleRate: 48_000) }
        #expect(info.sampleCount == 480)
        let timestamps = try [0, 1, 2].map { sequence in try stream.rtpPacket(sequence).withUnsafeBytes { try RTPPacketView($0).timestamp } }
        #expect(timestamps[1] &- timestamps[0] == 480 && timestamps[2] &- timestamps[1] == 480)
        let trace = NetworkTrace(packets: (0..<20).map { TracePacket(sequence: $0, sendMs: Double($0) * 10, arrivalMs: Double($0) * 10 + 2) })
        let playout = try FixedDelayPlayout(trace, stream: stream, delayMs: 5)
        #expect(playout.pcm.count == 240 + 20 * 480)
        #expect(playout.decodedPackets == 20)
        #expect(throws: JitterBufferEvaluationError.unsupportedFrameDuration(15)) {
            try OpusPacketStream(pcm: pcm, frameCount: 2, encoding: .init(), frameDurationMs: 15)
        }
    }
}
