// SPDX-License-Identifier: Apache-2.0
import NetworkSimulation
import Opus
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
}
