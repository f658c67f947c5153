// SPDX-License-Identifier: Apache-2.0
import Foundation
import MediaEngine
import MediaEngineTesting
import SRTP
import Testing
import TestSupport

/// A second sender holding the right key (a forked call, a second instance, someone with the
/// key) streaming from elsewhere while the call's sender still talks: it never takes over;
/// it is dropped, counted and reported once; once the first falls silent (or says goodbye) it
/// may replace it, reported as an SSRC change. On the virtual clock, 20 ms a frame.
@Suite struct ParallelStreamTests {
    static let alice = CallOverNetworkTests.alice
    static let bob = CallOverNetworkTests.bob

    /// What the receiver did with the datagrams of each sender.
    struct Run {
        var played: [Int16] = []
        var events: [CallMediaEvent] = []
        /// Dispositions of the second sender's datagrams, RTP and RTCP.
        var secondDispositions: [(rtcp: Bool, disposition: ReceivedDatagramDisposition)] = []
    }

    /// Frames 0..<`frames`: `first` sends Alice while `firstSends(index)`, `second` sends Bob
    /// while `secondSends(index)`, each frame's datagrams handed to `receiver` (the first's
    /// before the second's), which plays one frame.
    static func run(frames: Int, first: CallMedia, second: CallMedia, receiver: CallMedia,
                    firstSends: (Int) -> Bool, secondSends: (Int) -> Bool, byeAfter: Int? = nil) -> Run {
        var run = Run()
        var frame = [Int16](repeating: 0, count: 960)
        for index in 0..<frames {
            let now = Double(index) * 20
            if firstSends(index) {
                CallLoop.frame(index, of: alice, length: 960).withUnsafeBufferPointer { first.send(microphone: $0) }
                first.sendDatagrams(nowMs: now) { datagram in
                    var copy = Array(datagram)
                    copy.withUnsafeMutableBytes { _ = receiver.receiveDatagram($0, arrivalTimeMs: now) }
                }
            }
            if index == byeAfter {
                first.sendBye { datagram in
                    var copy = Array(datagram)
                    copy.withUnsafeMutableBytes { _ = receiver.receiveDatagram($0, arrivalTimeMs: now) }
                }
            }
            if secondSends(index) {
                CallLoop.frame(index, of: bob, length: 960).withUnsafeBufferPointer { second.send(microphone: $0) }
                second.sendDatagrams(nowMs: now) { datagram in
                    var copy = Array(datagram)
                    let disposition = copy.withUnsafeMutableBytes { receiver.receiveDatagram($0, arrivalTimeMs: now) }
                    run.secondDispositions.append((CallMedia.isRTCP(datagram), disposition))
                }
            }
            frame.withUnsafeMutableBufferPointer { _ = receiver.render(into: $0, nowMs: now) }
            run.played += frame
        }
        receiver.drainEvents { run.events.append($0) }
        return run
    }

    static func calls() throws -> (first: CallMedia, second: CallMedia, receiver: CallMedia) {
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let configuration = MediaConfiguration()
        return (try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 1, rtcpSeed: 1),
                try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 2, rtcpSeed: 2),
                try CallMedia(configuration: configuration, sendingKey: key, receivingKey: key, ssrc: 3, rtcpSeed: 3))
    }

    @Test func aParallelStreamWithTheKeyNeverTakesOverAndIsReportedOnce() throws {
        let (first, second, receiver) = try Self.calls()
        let run = Self.run(frames: 400, first: first, second: second, receiver: receiver,
                           firstSends: { _ in true }, secondSends: { $0 >= 50 })
        let inbound = receiver.statistics.inbound
        #expect(inbound.ssrc == 1)
        #expect(inbound.ssrcChanges == 0)
        #expect(!run.events.contains { if case .ssrcChanged = $0 { true } else { false } })
        #expect(run.events.filter { $0 == .competingSourceRefused(ssrc: 2) }.count == 1, "reported once: \(run.events)")
        #expect(inbound.packetsFromCompetingSource == 350)
        // Neither its RTP nor its RTCP counts as the peer's: a symmetric-RTP latch, which
        // moves only on authenticated datagrams, stays on the first sender's address.
        #expect(run.secondDispositions.allSatisfy { $0.disposition == .dropped })
        let rtcp = run.secondDispositions.filter(\.rtcp).count
        #expect(rtcp >= 1, "the second sender's reports were tried too")
        #expect(receiver.statistics.transport.rtcpFromCompetingSource == rtcp)
        // Alice plays throughout.
        let heard = SignalComparison.segmentalCorrelation(reference: Array(Self.alice[(60 * 960)..<(380 * 960)]),
                                                          signal: Array(run.played[(60 * 960)...]), segmentLength: 2_880, maxLag: 9_600)
        #expect(heard > 0.8, "the first sender plays on: \(heard)")
    }

    @Test func aParallelStreamReplacesASenderThatFellSilentAndTheSwitchIsReported() throws {
        let (first, second, receiver) = try Self.calls()
        let run = Self.run(frames: 300, first: first, second: second, receiver: receiver,
                           firstSends: { $0 < 100 }, secondSends: { $0 >= 50 })
        let inbound = receiver.statistics.inbound
        #expect(run.events.contains(.competingSourceRefused(ssrc: 2)))
        #expect(run.events.contains(.ssrcChanged(from: 1, to: 2)))
        #expect(inbound.ssrcChanges == 1)
        #expect(inbound.ssrc == 2)
        // Refused from frame 50 until the first sender had been silent 500 ms (frame 99 + 25).
        #expect((73...76).contains(inbound.packetsFromCompetingSource), "\(inbound.packetsFromCompetingSource)")
        let switchedRTP = run.secondDispositions.filter { !$0.rtcp && $0.disposition.isAuthenticated }.count
        #expect(switchedRTP >= 170, "the second sender's RTP is the call's after the switch: \(switchedRTP)")
        let heard = SignalComparison.segmentalCorrelation(reference: Array(Self.bob[(140 * 960)..<(290 * 960)]),
                                                          signal: Array(run.played[(140 * 960)...]), segmentLength: 2_880, maxLag: 9_600)
        #expect(heard > 0.8, "the second sender plays after the switch: \(heard)")
    }

    @Test func aSenderThatSaysGoodbyeIsReplacedAtOnce() throws {
        let (first, second, receiver) = try Self.calls()
        let run = Self.run(frames: 200, first: first, second: second, receiver: receiver,
                           firstSends: { $0 < 100 }, secondSends: { $0 >= 100 }, byeAfter: 99)
        let inbound = receiver.statistics.inbound
        #expect(run.events.contains(.ssrcChanged(from: 1, to: 2)))
        #expect(!run.events.contains(.competingSourceRefused(ssrc: 2)))
        #expect(inbound.packetsFromCompetingSource == 0)
        #expect(inbound.packetsFromUnconfirmedSource == 1, "only the probation's first packet")
    }
}
