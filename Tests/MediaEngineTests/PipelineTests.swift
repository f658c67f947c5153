import Foundation
import MediaEngine
import RTP
import SRTP
import Testing
import TestSupport

/// Uplink → (SRTP) → downlink without sockets: loss, reordering, forgery, replay, SSRC
/// change, configuration errors, and the zero-allocation rule for the per-frame audio path.
@Suite struct PipelineTests {
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

    /// Feeds packets to a downlink, through `srtp` first when given; returns what was heard.
    func play(_ datagrams: [[UInt8]], into downlink: DownlinkPipeline, through srtp: SRTPTransportStage? = nil) -> [Int16] {
        var heard: [Int16] = []
        for datagram in datagrams {
            var copy = datagram
            copy.withUnsafeMutableBytes { bytes in
                guard let packet = srtp.map({ $0.unprotect(bytes) }) ?? UnsafeRawBufferPointer(bytes) else { return }
                downlink.receive(packet) { heard.append(contentsOf: $0) }
            }
        }
        return heard
    }

    @Test func lostPacketIsRecoveredFromFECAndCounted() throws {
        var sent = try packets(frames(50))
        sent.remove(at: 20)
        let downlink = try DownlinkPipeline(configuration: configuration)
        let heard = play(sent, into: downlink)
        #expect(downlink.statistics.packetsLost == 1)
        #expect(downlink.statistics.packetsReceived == 49)
        #expect(downlink.statistics.fecRecoveredFrames == 1)
        #expect(heard.count == 50 * 960, "the gap is filled, so playout keeps its length")
    }

    @Test func longGapIsConcealedAndLatePacketsAreDropped() throws {
        var sent = try packets(frames(30))
        let late = sent.remove(at: 5)
        sent.removeSubrange(10..<14)
        sent.insert(late, at: 12)  // arrives after later packets were played
        let downlink = try DownlinkPipeline(configuration: configuration)
        _ = play(sent, into: downlink)
        #expect(downlink.statistics.packetsDiscarded == 1)
        #expect(downlink.statistics.packetsLost == 5)
        #expect(downlink.statistics.concealedSamples > 0)
    }

    @Test func forgedTamperedReplayedAndMalformedDatagramsAreCountedAndDropped() throws {
        let sent = try packets(frames(10), key: key)
        var generator = SeededGenerator(seed: 42)
        var hostile: [[UInt8]] = []
        var tampered = sent[3]
        tampered[20] ^= 0x01
        hostile.append(tampered)                                        // auth failure
        hostile.append(sent[2])                                         // replay
        hostile.append(try packets(frames(1), key: .random(profile: .aesCM128HmacSha1_80), sequence: 103)[0])  // wrong key
        for length in [0, 1, 11, 12, 13, 40, 300] {                      // garbage
            hostile.append((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
        }
        let downlink = try DownlinkPipeline(configuration: configuration)
        let srtp = try SRTPTransportStage(sendingKey: key, receivingKey: key)
        let heard = play(Array(sent[0..<3]) + hostile + Array(sent[3...]), into: downlink, through: srtp)
        let stats = srtp.statistics
        #expect(downlink.statistics.packetsReceived == 10)
        #expect(downlink.statistics.packetsLost == 0)
        #expect(stats.packetsUnprotected == 10)
        #expect(stats.replays == 1)
        #expect(stats.authFailures + stats.malformed == hostile.count - 1)
        #expect(stats.authFailures >= 2)
        #expect(stats.datagramsReceived == 10 + hostile.count)
        #expect(heard.count == 10 * 960, "hostile datagrams cost nothing audible")
    }

    @Test func malformedRTPIsCountedAndDropped() throws {
        let sent = try packets(frames(3))
        var wrongType = sent[1]
        wrongType[1] = 0x80 | 96
        let downlink = try DownlinkPipeline(configuration: configuration)
        _ = play([sent[0], [0x80, 0x6f, 0], [0x40] + Array(sent[1][1...]), wrongType, sent[1], sent[2]], into: downlink)
        #expect(downlink.statistics.malformedPackets == 2)
        #expect(downlink.statistics.unknownPayloadTypePackets == 1)
        #expect(downlink.statistics.packetsReceived == 3)
        #expect(downlink.statistics.packetsHandled == 6)
    }

    @Test func newSSRCRestartsTheStream() throws {
        let first = try packets(frames(5), ssrc: 1, sequence: 10)
        let second = try packets(frames(5), ssrc: 2, sequence: 5_000)
        let downlink = try DownlinkPipeline(configuration: configuration)
        _ = play(first + second, into: downlink)
        #expect(downlink.statistics.ssrcChanges == 1)
        #expect(downlink.statistics.packetsLost == 0)
        #expect(downlink.statistics.packetsReceived == 10)
    }

    @Test func refusesBadConfigurationAtConstruction() {
        var bad = MediaConfiguration()
        bad.sampleRate = 44_100
        #expect(throws: MediaPipelineError.self) { try UplinkPipeline(configuration: bad) }
        bad = MediaConfiguration()
        bad.payloadType = 8
        #expect(throws: MediaPipelineError.self) { try DownlinkPipeline(configuration: bad) }
        bad = MediaConfiguration()
        bad.frameDurationMs = 25
        #expect(throws: MediaConfigurationError.self) { try bad.validate() }
        let uplink = try? UplinkPipeline(configuration: configuration)
        #expect(throws: MediaPipelineError.wrongFrameSize(expected: 960, got: 100)) {
            try [Int16](repeating: 0, count: 100).withUnsafeBufferPointer { _ = try uplink?.process($0) }
        }
    }

    /// The audio thread's per-frame work: encode + packetise, then parse + FEC/PLC + decode.
    /// (SRTP runs on the network thread: libsrtp's NSS backend allocates per packet.)
    @Test func steadyStatePerFramePathAllocatesNothing() throws {
        let uplink = try UplinkPipeline(configuration: configuration)
        let downlink = try DownlinkPipeline(configuration: configuration)
        let input = frames(100)
        let datagram = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 8)
        defer { datagram.deallocate() }
        var played = 0
        func oneFrame(_ index: Int) throws {
            try input[index].withUnsafeBufferPointer { frame in
                guard let packet = try uplink.process(frame) else { return }
                if index % 10 == 7 { return }  // lost: the next packet's FEC rebuilds it
                datagram.copyMemory(from: UnsafeRawBufferPointer(rebasing: packet.buffer[0..<packet.length]))
                downlink.receive(UnsafeRawBufferPointer(rebasing: datagram[0..<packet.length])) { played += $0.count }
            }
        }
        for index in 0..<20 { try oneFrame(index) }  // warm-up: first SSRC, codec state
        let (_, allocations) = try AllocationCounter.measure { for index in 20..<100 { try oneFrame(index) } }
        #expect(allocations == 0)
        #expect(played == 100 * 960, "every lost frame is filled when the packet after it arrives")
        #expect(downlink.statistics.fecRecoveredFrames == 10)
    }
}
