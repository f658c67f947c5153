// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import RTP
import SRTP
import Testing
import TestSupport

/// The encoder half of a call: DTX, RTP numbering, configuration errors.
@Suite struct UplinkPipelineTests {
    let configuration = MediaConfiguration()
    let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)

    /// 20 ms frames of a voice-like signal (two harmonics with a slow envelope).
    func frames(_ count: Int) -> [[Int16]] {
        (0..<count).map { frame in
            (0..<960).map { index in
                let t = Double(frame * 960 + index) / 48_000
                let envelope = 0.5 + 0.5 * sin(2 * .pi * 3 * t)
                return Int16(9_000 * envelope * (sin(2 * .pi * 220 * t) + 0.5 * sin(2 * .pi * 660 * t)))
            }
        }
    }

    /// RTP packets as an uplink sends them, SRTP-protected when `key` is given.
    func packets(_ frames: [[Int16]], key: SRTPKeyingMaterial? = nil, ssrc: UInt32 = 0x1234_5678, sequence: UInt16 = 100) throws -> [[UInt8]] {
        let uplink = try UplinkPipeline(configuration: configuration, ssrc: ssrc, initialSequenceNumber: sequence, initialTimestamp: 0)
        let srtp = try key.map { try SRTPTransportStage(sendingKey: $0, receivingKey: $0) }
        return try frames.map { frame in
            try frame.withUnsafeBufferPointer { pcm in
                let packet = try #require(try uplink.process(pcm))
                if let srtp { return Array(try srtp.protect(packet.buffer, length: packet.length)) }
                return Array(packet.buffer[0..<packet.length])
            }
        }
    }

    /// DTX: the first "nothing to send" packet of a silent run goes out (so the receiver knows
    /// the sender went silent), the rest are suppressed; sequence numbers stay contiguous, the
    /// timestamp jumps over the silence, and the first packet after it carries the marker.
    @Test func dtxSendsTheFirstSilentPacketOfARunAndSuppressesTheRest() throws {
        var configuration = MediaConfiguration()
        configuration.discontinuousTransmission = true
        let uplink = try UplinkPipeline(configuration: configuration, ssrc: 0x1234_5678, initialSequenceNumber: 100, initialTimestamp: 0)
        let silence = [Int16](repeating: 0, count: 960)
        let input = frames(25) + Array(repeating: silence, count: 50) + frames(10)
        var sent: [(sequence: UInt16, timestamp: UInt32, marker: Bool, isDTX: Bool)] = []
        for frame in input {
            try frame.withUnsafeBufferPointer { pcm in
                guard let packet = try uplink.process(pcm) else { return }
                let view = try RTPPacketView(UnsafeRawBufferPointer(rebasing: packet.buffer[0..<packet.length]))
                sent.append((view.sequenceNumber, view.timestamp, view.marker, view.payload.count <= 2))
            }
        }
        #expect(uplink.statistics.framesSuppressedByDTX >= 30)
        #expect(uplink.statistics.packetsSent + uplink.statistics.framesSuppressedByDTX == input.count)
        #expect(sent.contains { $0.isDTX })
        #expect(zip(sent, sent.dropFirst()).allSatisfy { !($0.isDTX && $1.isDTX) }, "a silent run sends one DTX packet")
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.sequence == $0.sequence &+ 1 })
        let resumed = try #require(zip(sent, sent.dropFirst()).first { $1.timestamp - $0.timestamp > 960 })
        #expect(resumed.1.marker)
        // Markers exactly where a talkspurt starts after suppressed frames.
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $1.marker == ($1.timestamp - $0.timestamp > 960) })
    }

    @Test func refusesBadConfigurationAtConstruction() {
        var bad = MediaConfiguration()
        bad.sampleRate = 44_100
        #expect(throws: MediaPipelineError.self) { try UplinkPipeline(configuration: bad) }
        bad = MediaConfiguration()
        bad.payloadType = 8
        #expect(throws: MediaPipelineError.self) { try UplinkPipeline(configuration: bad) }
        bad = MediaConfiguration()
        bad.frameDurationMs = 25
        #expect(throws: MediaConfigurationError.self) { try bad.validate() }
        let uplink = try? UplinkPipeline(configuration: configuration)
        #expect(throws: MediaPipelineError.wrongFrameSize(expected: 960, got: 100)) {
            try [Int16](repeating: 0, count: 100).withUnsafeBufferPointer { _ = try uplink?.process($0) }
        }
    }
}
