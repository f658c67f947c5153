// SPDX-License-Identifier: Apache-2.0
import MediaEngine
import MediaEngineTesting
import NetworkSimulation
import RTP
import Testing
import TestSupport

/// RTCP between two calls on the virtual clock: RFC 3550 timing and content, round-trip time
/// from LSR/DLSR, the far end's view of our stream, BYE, and SRTCP.
@Suite struct RTCPTests {
    static func silence(_: Int, _: CallLoop.Side) -> [Int16] { [Int16](repeating: 0, count: 960) }
    static func speech(_ index: Int, _: CallLoop.Side) -> [Int16] { CallLoop.frame(index, of: CallOverNetworkTests.alice, length: 960) }

    @Test func reportsFollowRFC3550TimingAndCarrySenderInfoAndCNAME() async throws {
        try await offCooperativePool {
            let aliceToBob = SimulatedLink(trace: nil)
            var reports: [(ms: Double, compound: RTCPCompoundPacket)] = []
            aliceToBob.observer = { datagram, ms in
                guard CallMedia.isRTCP(datagram), let compound = try? RTCPCompoundPacket(parsing: datagram) else { return }
                reports.append((ms, compound))
            }
            let loop = try CallLoop(aliceToBob: aliceToBob, srtp: false)
            loop.run(frames: 3_000, aliceMicrophone: Self.speech, bobMicrophone: Self.silence)  // 60 s

            // Before the first report the minimum is halved (2.5 s): [0.5, 1.5] × 2.5 s / (e − 3/2).
            let compensation = 2.71828 - 1.5
            let first = try #require(reports.first?.ms)
            #expect(first >= 2_500 * 0.5 / compensation - 20 && first <= 2_500 * 1.5 / compensation + 20, "first report at \(first) ms")
            // Then [0.5, 1.5] × 5 s / (e − 3/2), about 5 s on average with reconsideration.
            let intervals = zip(reports, reports.dropFirst()).map { $1.ms - $0.ms }
            #expect(intervals.allSatisfy { $0 >= 5_000 * 0.5 / compensation - 20 && $0 <= 5_000 * 1.5 / compensation + 20 }, "\(intervals)")
            let mean = intervals.reduce(0, +) / Double(intervals.count)
            #expect(mean > 4_000 && mean < 6_000, "mean interval \(mean) ms")
            // A sender report (Alice sends), a block about Bob's stream, then SDES with a CNAME.
            let (lastMs, lastCompound) = try #require(reports.last)
            let last = lastCompound.packets
            guard case let .senderReport(report) = last.first else { Issue.record("a sending call reports with an SR: \(last)"); return }
            #expect(report.ssrc == loop.alice.call.ssrc)
            #expect(report.reportBlocks.first?.ssrc == loop.bob.call.ssrc)
            // One packet per 20 ms frame up to the report (sent after that frame's packet).
            let sentByThen = Int(lastMs / 20) + 1
            #expect(abs(Int(report.packetCount) - sentByThen) <= 1, "SR counts \(report.packetCount), \(sentByThen) sent by \(lastMs) ms")
            guard case let .sourceDescription(sdes) = last.dropFirst().first else { Issue.record("SDES follows the report"); return }
            #expect(sdes.chunks.first?.canonicalName?.count == 16)
            #expect(loop.bob.call.statistics.remoteOutbound.reportsSent == reports.count)
        }
    }

    @Test func roundTripTimeComesFromLSRAndDLSRWithinAMillisecond() throws {
        let aliceToBob = SimulatedLink(trace: nil), bobToAlice = SimulatedLink(trace: nil)
        aliceToBob.fixedDelayMs = 37
        bobToAlice.fixedDelayMs = 41
        let loop = try CallLoop(aliceToBob: aliceToBob, bobToAlice: bobToAlice)
        loop.run(frames: 1_000, aliceMicrophone: Self.speech, bobMicrophone: Self.speech)
        for side in [loop.alice, loop.bob] {
            let remote = side.call.statistics.remoteInbound
            let rtt = try #require(remote.roundTripTime)
            #expect(abs(rtt - 0.078) < 0.001, "RTT \(rtt) s over a 37 + 41 ms path")
            #expect(remote.roundTripTimeMeasurements >= 2)
            #expect(remote.packetsLost == 0)
        }
    }

    @Test func theFarEndsReportsShowTheLossItSaw() throws {
        var generator = SeededGenerator(seed: 9)
        let profile = NetworkProfile.classC.withBurstyLoss()
        let trace = NetworkSimulator(profile: profile).trace(packetCount: 1_500, using: &generator)
        let aliceToBob = SimulatedLink(trace: trace), bobToAlice = SimulatedLink(trace: nil)
        var bobsLastBlock: (ms: Double, block: RTCPReportBlock)?
        bobToAlice.observer = { datagram, ms in
            guard CallMedia.isRTCP(datagram), let compound = try? RTCPCompoundPacket(parsing: datagram) else { return }
            for packet in compound.packets {
                switch packet {
                case let .senderReport(report): if let block = report.reportBlocks.first { bobsLastBlock = (ms, block) }
                case let .receiverReport(report): if let block = report.reportBlocks.first { bobsLastBlock = (ms, block) }
                default: break
                }
            }
        }
        let loop = try CallLoop(aliceToBob: aliceToBob, bobToAlice: bobToAlice, srtp: false)
        loop.run(frames: 1_500, aliceMicrophone: Self.speech, bobMicrophone: Self.silence)
        let remote = loop.alice.call.statistics.remoteInbound
        #expect(aliceToBob.lost > 20)
        let (reportMs, block) = try #require(bobsLastBlock)
        // Bob counts as lost what the network lost among the packets sent before his report,
        // less those still on their way (class C delays are well under 500 ms), plus those a
        // later packet overtook and that are still on their way (RFC 3550 A.3 counts them until
        // they arrive).
        func lost(sentBefore ms: Double) -> Int { trace.packets.filter { $0.arrivalMs == nil && $0.sendMs < ms }.count }
        func overtaken(at ms: Double) -> Int {
            trace.packets.filter { packet in
                guard let arrival = packet.arrivalMs, packet.sendMs < ms, arrival > ms else { return false }
                return trace.packets.contains { ($0.arrivalMs ?? .infinity) <= ms && $0.sequence > packet.sequence }
            }.count
        }
        #expect(Int(block.cumulativeLost) >= lost(sentBefore: reportMs - 500)
                    && Int(block.cumulativeLost) <= lost(sentBefore: reportMs) + overtaken(at: reportMs),
                "Bob reports \(block.cumulativeLost) lost at \(reportMs) ms")
        #expect(remote.packetsLost == Int(block.cumulativeLost), "Alice learns what Bob reported")
        #expect(remote.reportsReceived >= 5)
    }

    @Test func byeIsAnEventAndTamperedSRTCPIsCountedAndDropped() throws {
        let loop = try CallLoop()
        loop.run(frames: 400, aliceMicrophone: Self.speech, bobMicrophone: Self.speech)
        #expect(loop.bob.call.statistics.transport.rtcpDatagramsReceived >= 2, "SRTCP reports got through")
        #expect(loop.bob.call.statistics.remoteOutbound.reportsSent >= 2)
        var events: [CallMediaEvent] = []
        loop.bob.call.drainEvents { _ in }
        var bye: [UInt8] = []
        loop.alice.call.sendBye(reason: "hung up") { bye = Array($0) }
        var tampered = bye
        tampered[tampered.count / 2] ^= 0x40
        let failuresBefore = loop.bob.call.statistics.transport.srtp.authFailures
        tampered.withUnsafeMutableBytes { loop.bob.call.receiveDatagram($0, arrivalTimeMs: 8_000) }
        #expect(loop.bob.call.statistics.transport.srtp.authFailures == failuresBefore + 1)
        loop.bob.call.drainEvents { events.append($0) }
        #expect(!events.contains(.remoteBye), "a forged BYE ends nothing")
        bye.withUnsafeMutableBytes { loop.bob.call.receiveDatagram($0, arrivalTimeMs: 8_000) }
        loop.bob.call.drainEvents { events.append($0) }
        #expect(events.contains(.remoteBye))
    }
}
