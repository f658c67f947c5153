// SPDX-License-Identifier: Apache-2.0
import CallQuality
import Foundation
import Testing
import JitterBuffer
import JitterBufferEvaluation
import Opus
import RTP
import TestSupport

/// Store scenarios with exact expectations, on a fixed 45 ms target so playout is predictable:
/// packets arrive 5 ms after sending and are decoded 55 ms after, inside the 40–65 ms band where
/// nothing is stretched.
@Suite struct PacketStoreScenarioTests {
    typealias F = StreamFixture

    static func range(_ first: UInt16, count: Int) -> [UInt16] {
        (0..<count).map { first &+ UInt16($0) }
    }

    @Test func inOrderStreamPlaysEveryPacketNormally() throws {
        let buffer = try F.fixedDelayBuffer()
        let ticks = F.run(buffer, deliveries: F.stream(count: 50), ticks: 53)
        #expect(F.played(ticks) == Self.range(1_000, count: 50))
        let kinds = Set(ticks.map(\.event.kind))
        #expect(kinds == [.comfortNoise, .normal])  // silence until the first packet waited 55 ms
        #expect(buffer.statistics.packetsReceived == 50)
        #expect(buffer.statistics.concealmentEvents == 0)
        // W3C delay: every packet arrives 5 ms after sending and plays 55 ms after arriving.
        let statistics = buffer.statistics
        #expect(statistics.jitterBufferEmittedCount == 50 * 960)
        #expect(abs(statistics.jitterBufferDelay / Double(statistics.jitterBufferEmittedCount) - 0.055) < 1e-9)
        #expect(abs(statistics.jitterBufferTargetDelay / Double(statistics.jitterBufferEmittedCount) - 0.045) < 1e-9)
    }

    @Test func reorderedPacketsPlayInOrder() throws {
        let buffer = try F.fixedDelayBuffer()
        var deliveries = F.stream(count: 40)
        for index in [10, 20, 30] {  // packet n arrives 15 ms after packet n+1 (still in time)
            deliveries[index].arrivalMs = deliveries[index + 1].arrivalMs + 15
        }
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 43)
        #expect(F.played(ticks) == Self.range(1_000, count: 40))
        #expect(buffer.statistics.packetsDiscarded == 0)
        #expect(buffer.statistics.concealmentEvents == 0)
    }

    @Test func duplicatesAreDroppedAndCounted() throws {
        let buffer = try F.fixedDelayBuffer()
        var deliveries = F.stream(count: 40)
        for index in stride(from: 0, to: 40, by: 5) {
            var copy = deliveries[index]
            copy.arrivalMs += 7
            deliveries.append(copy)
        }
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 50)
        #expect(F.played(ticks) == Self.range(1_000, count: 40))
        #expect(buffer.statistics.packetsDuplicated == 8)
        #expect(buffer.statistics.packetsReceived == 48)
    }

    @Test func latePacketIsDiscardedAndItsSlotConcealed() throws {
        let buffer = try F.fixedDelayBuffer()
        var deliveries = F.stream(count: 40, fec: false)
        deliveries[15].arrivalMs += 200
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 43)
        #expect(F.played(ticks) == Self.range(1_000, count: 40).filter { $0 != 1_015 })
        #expect(buffer.statistics.packetsDiscarded == 1)
        #expect(buffer.statistics.concealmentEvents == 1)
        #expect(buffer.statistics.concealedSamples == 960)
        #expect(buffer.statistics.fecPacketsReceived == 0)
        let kinds = ticks.map(\.event.kind)
        let expandAt = try #require(kinds.firstIndex(of: .expand))
        #expect(ticks[expandAt - 1].event.sequenceNumber == 1_014)
        #expect(kinds[expandAt + 1] == .merge)
        #expect(ticks[expandAt + 1].event.sequenceNumber == 1_016)
    }

    /// A packet overtaken by the next one is waited for when the network has recently delayed
    /// packets that much: packet 1010 (70 ms late, a delay never seen before) is given up;
    /// once that delay is in the histogram, packet 1020 arriving just as late is waited for one
    /// tick and merged in, and nothing after it is lost. The delay also raised the target, so
    /// the tick waited is kept rather than accelerated away.
    @Test func overtakenPacketIsWaitedForWhenTheNetworkHasDelayedThatMuch() throws {
        let buffer = try F.adaptiveBuffer(policy: .waitForPacket)
        var deliveries = F.stream(count: 40, fec: false)
        deliveries[10].arrivalMs += 70
        deliveries[20].arrivalMs += 70
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 44)  // a tick more than the stream on time
        let started = F.allStarted(ticks)
        #expect(!started.contains(1_010))
        #expect(started.contains(1_020))
        #expect(started == Self.range(1_000, count: 40).filter { $0 != 1_010 })
        #expect(ticks.first { $0.event.sequenceNumber == 1_020 }?.event.kind == .merge)
        let waited = try #require(ticks.firstIndex { $0.event.sequenceNumber == 1_020 })
        #expect(ticks[waited - 1].event.kind == .expand)
        #expect(buffer.statistics.packetsDiscarded == 1)
        #expect(buffer.statistics.concealmentEvents == 2)
        #expect(buffer.targetDelayMs > 45)
        #expect(buffer.statistics.removedSamplesForAcceleration == 0)
        #expect(ticks.last?.event.sequenceNumber == 1_039)
    }

    /// The same overtaken packet in a stream with in-band FEC: by default it is rebuilt at once
    /// from the next packet's FEC (no concealment, no wait); with `.waitForPacket` its own
    /// payload is waited for and merged in.
    @Test(arguments: [LatePacketPolicy.recoverFromFECFirst, .waitForPacket])
    func overtakenPacketWithFECFollowsThePolicy(policy: LatePacketPolicy) throws {
        let buffer = try F.adaptiveBuffer(policy: policy)
        var deliveries = F.stream(count: 40)
        deliveries[10].arrivalMs += 70
        deliveries[20].arrivalMs += 70
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 43)
        let kindOf1020 = ticks.first { $0.event.sequenceNumber == 1_020 }?.event.kind
        switch policy {
        case .recoverFromFECFirst:
            #expect(kindOf1020 == .fecRecovery)
            #expect(buffer.statistics.fecPacketsRecovered == 2)
            #expect(buffer.statistics.concealmentEvents == 0)
            #expect(buffer.statistics.packetsDiscarded == 2)  // both own payloads came too late
        case .waitForPacket:
            #expect(kindOf1020 == .merge)
            #expect(buffer.statistics.fecPacketsRecovered == 1)  // 1010: a delay never seen before
            #expect(buffer.statistics.concealmentEvents == 1)
            #expect(buffer.statistics.packetsDiscarded == 1)
        }
    }

    /// Concealment and the merge back into decoded audio add no click: across each seam (the
    /// frame boundary into concealment, and into the merged frame with its 2.5 ms crossfade) no
    /// sample-to-sample step exceeds the lossless decode's largest. (Inside a merged frame the
    /// decoder itself re-converges and may step a little higher: not a seam.)
    @Test func concealmentAndMergeSeamsAreSmooth() throws {
        func run(dropping: Set<Int>) throws -> [F.Tick] {
            let deliveries = F.stream(count: 40, fec: false).enumerated().filter { !dropping.contains($0.offset) }.map(\.element)
            return F.run(try F.fixedDelayBuffer(), deliveries: deliveries, ticks: 43, keepAudio: true)
        }
        func steps(_ samples: [Int16]) -> [Int] { zip(samples, samples.dropFirst()).map { abs(Int($1) - Int($0)) } }
        let lossless = try run(dropping: [])
        let lossy = try run(dropping: [12, 20, 21, 30])
        let limit = steps(lossless.flatMap(\.pcm)).max() ?? 0
        let lossySteps = steps(lossy.flatMap(\.pcm))
        var seams = 0
        for (tick, outcome) in lossy.enumerated() where tick > 0 && [.expand, .merge].contains(outcome.event.kind) {
            let start = tick * F.frameSamples - 1
            let seam = lossySteps[start..<(start + 121)]
            #expect(seam.max()! <= limit, "tick \(tick) \(outcome.event.kind): \(seam.max()!) > \(limit)")
            seams += 1
        }
        #expect(seams == 7)  // 12, 20–21 and 30 concealed (4 expand ticks) and 3 merges
    }

    @Test func latePacketIsRecoveredFromTheNextPacketsFEC() throws {
        let buffer = try F.fixedDelayBuffer()
        var deliveries = F.stream(count: 40)
        deliveries[15].arrivalMs += 200
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 43)
        #expect(F.played(ticks) == Self.range(1_000, count: 40))
        #expect(ticks.first { $0.event.sequenceNumber == 1_015 }?.event.kind == .fecRecovery)
        #expect(buffer.statistics.fecPacketsRecovered == 1)
        #expect(buffer.statistics.packetsDiscarded == 1)
        #expect(buffer.statistics.concealmentEvents == 0)
        #expect(buffer.statistics.fecPacketsReceived >= 30)
    }

    /// The recovered frame sounds like the lost one: its error against the lossless decode is
    /// well below the signal (measured −9 dB) and far below that of the previous frame replayed
    /// in its place (about 0 dB; a crude stand-in for concealment).
    @Test func fecRecoveryIsCloseToTheLostAudio() throws {
        func output(dropping: Int?) throws -> [F.Tick] {
            var deliveries = F.stream(count: 40)
            if let dropping { deliveries.remove(at: dropping) }
            return F.run(try F.fixedDelayBuffer(), deliveries: deliveries, ticks: 43, keepAudio: true)
        }
        let lossless = try output(dropping: nil)
        let recovered = try output(dropping: 25)
        let slot = try #require(lossless.firstIndex { $0.event.sequenceNumber == 1_025 })
        #expect(recovered[slot].event.kind == .fecRecovery)
        func errorDecibels(_ signal: [Int16], _ reference: [Int16]) -> Double {
            let error = zip(signal, reference).map { Int16(clamping: Int($0) - Int($1)) }
            return SignalComparison.rmsDecibels(error) - SignalComparison.rmsDecibels(reference)
        }
        let fecError = errorDecibels(recovered[slot].pcm, lossless[slot].pcm)
        let plcError = errorDecibels(lossless[slot - 1].pcm, lossless[slot].pcm)
        let figures: Comment = "FEC error \(fecError) dB, repeat-previous error \(plcError) dB"
        #expect(fecError < -6, figures)
        #expect(fecError < plcError - 3, figures)
    }

    @Test func sequenceAndTimestampWrap() throws {
        let buffer = try F.fixedDelayBuffer()
        let deliveries = F.stream(count: 40, firstSequence: 65_520, firstTimestamp: UInt32.max - 960 * 10 + 1)
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 43)
        #expect(F.played(ticks) == Self.range(65_520, count: 40))
        #expect(buffer.statistics.concealmentEvents == 0)
        #expect(buffer.statistics.packetsDiscarded == 0)
    }

    @Test func ssrcChangeRestartsCleanly() throws {
        let buffer = try F.fixedDelayBuffer()
        let first = F.stream(count: 20)
        let second = F.stream(count: 20, firstSequence: 7, firstTimestamp: 9_999, ssrc: 0xCAFE, startMs: 400)
        let ticks = F.run(buffer, deliveries: first + second, ticks: 60)
        // The first stream plays until its packets run out; the new one starts after its own
        // initial wait, with every packet played (none taken as late against the old numbering).
        #expect(F.played(ticks) == Self.range(1_000, count: 20).filter { $0 < 1_018 } + Self.range(7, count: 20))
        #expect(buffer.statistics.packetsDiscarded == 0)
        #expect(buffer.statistics.flushes == 0)
    }

    @Test func timestampJumpRestarts() throws {
        let buffer = try F.fixedDelayBuffer()
        var deliveries = F.stream(count: 40)
        for index in 20..<40 {  // same SSRC and sequence, timestamps jump by an hour
            deliveries[index].bytes = F.rtp(sequence: 1_000 + UInt16(index), timestamp: 50_000 + UInt32(index * 960) + 172_800_000,
                                            payload: F.payloads[index])
        }
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 50)
        // Packets 18 and 19 were still queued at the restart and are dropped with the old stream.
        #expect(F.played(ticks) == Self.range(1_000, count: 18) + Self.range(1_020, count: 20))
        #expect(buffer.statistics.packetsDiscarded == 0)
        #expect(buffer.statistics.silentConcealedSamples == 0)
    }

    @Test func payloadTypeChangeResetsTheDecoderAndPlaysOn() throws {
        let buffer = try F.fixedDelayBuffer()
        var deliveries = F.stream(count: 40)
        for index in 20..<40 {
            deliveries[index].bytes = F.rtp(sequence: 1_000 + UInt16(index), timestamp: 50_000 + UInt32(index * 960),
                                            payloadType: 96, payload: F.payloads[index])
        }
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 43)
        #expect(F.played(ticks) == Self.range(1_000, count: 40))
        #expect(buffer.statistics.packetsDiscarded == 0)
        #expect(buffer.statistics.concealmentEvents == 0)
    }

    @Test func dtxGapIsSilenceNotLoss() throws {
        let buffer = try F.fixedDelayBuffer()
        var deliveries = F.stream(count: 40)
        // Packet 19 is the sender's DTX packet; it then sends nothing for 10 frames: sequence
        // numbers go on, timestamps skip.
        deliveries[19].bytes = F.rtp(sequence: 1_019, timestamp: 50_000 + 19 * 960, payload: F.dtxPayload)
        for index in 20..<40 {
            deliveries[index].bytes = F.rtp(sequence: 1_000 + UInt16(index), timestamp: 50_000 + UInt32((index + 10) * 960),
                                            payload: F.payloads[index])
            deliveries[index].arrivalMs += 200
        }
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 53)
        #expect(F.played(ticks) == Self.range(1_000, count: 40))
        // The DTX packet's frame plus the 10 silent frames, and the last packet on time.
        #expect(buffer.statistics.silentConcealedSamples == 11 * 960)
        #expect(buffer.statistics.concealedSamples == 11 * 960)
        #expect(buffer.statistics.concealmentEvents == 0)
        #expect(ticks.filter { $0.event.kind == .expand }.isEmpty)
        #expect(ticks.last?.event.sequenceNumber == 1_039)
    }

    /// Loss in silence — the far end not talking, quiet for a second or more — is silent
    /// concealment (no listener hears it; the call's quality estimate does not count it); loss
    /// in a word, in a short pause between words, or at the onset of talk after silence is
    /// not. The talk: 1.2 s of voice, 2 s of silence (frames 60–159), voice again. Three packets
    /// lost each time: deep in the silence (120–122: silence carries no FEC, all three are
    /// concealed), early in it (70–72), mid-word (30–32), at the onset (160–162).
    @Test(arguments: [(120, true), (70, false), (30, false), (160, false)])
    func lossInSilenceIsSilentConcealment(firstLost: Int, isSilence: Bool) throws {
        let pcm = F.voice(frameCount: 60) + [Int16](repeating: 0, count: 100 * F.frameSamples) + F.voice(frameCount: 60, seed: 2)
        let payloads = try F.encode(pcm)
        func played(losing lost: Range<Int>) throws -> JitterBufferStatistics {
            let deliveries = payloads.indices.filter { !lost.contains($0) }.map { index in
                F.Delivery(arrivalMs: Double(index) * F.frameMs + 5,
                           bytes: F.rtp(sequence: 1_000 + UInt16(index), timestamp: 50_000 + UInt32(index * F.frameSamples), payload: payloads[index]),
                           sendMs: Double(index) * F.frameMs)
            }
            let buffer = try F.fixedDelayBuffer()
            _ = F.run(buffer, deliveries: deliveries, ticks: payloads.count + 5)
            return buffer.statistics
        }
        let whole = try played(losing: 0..<0)
        // The silence's frames from its second second on were decoded in silence (a few frames
        // of it are the voice's decoded tail, not quiet yet).
        #expect((45 * 960...50 * 960).contains(whole.samplesDecodedInSilence), "\(whole.samplesDecodedInSilence / 960) frames")
        let lossy = try played(losing: firstLost..<(firstLost + 3))
        let concealed = lossy.concealedSamples - whole.concealedSamples
        #expect(concealed >= 2 * 960)
        #expect(lossy.silentConcealedSamples - whole.silentConcealedSamples == (isSilence ? concealed : 0))
        #expect(!isSilence || concealed == 3 * 960)
    }

    /// A real DTX stream: the encoder (DTX on) codes voice, then faint noise; the sender sends
    /// the first "nothing to send" packet of each silent run and drops the rest (as
    /// `UplinkPipeline` and WebRTC do), so the receiver sees a DTX packet, then a timestamp gap
    /// with contiguous sequence numbers. The gaps play the decoder's comfort noise — close to the
    /// sender's background, not digital silence — and count as silent concealment, not loss.
    @Test func dtxGapsPlayComfortNoiseAtTheBackgroundLevel() throws {
        var generator = SeededGenerator(seed: 9)
        let background = (0..<(100 * F.frameSamples)).map { _ in Int16.random(in: -150...150, using: &generator) }
        let pcm = F.voice(frameCount: 50) + background
        let payloads = try OpusPacketStream(pcm: pcm, frameCount: pcm.count / F.frameSamples,
                                            encoding: .init(bitsPerSecond: nil, dtx: true)).payloads
        var deliveries: [F.Delivery] = []
        var sequence: UInt16 = 1_000
        var isInSilence = false
        for (frame, packet) in payloads.enumerated() {
            let isDTX = OpusEncoder.isDTXPacket(byteCount: packet.count)
            defer { isInSilence = isDTX }
            if isDTX && isInSilence { continue }
            let send = Double(frame) * F.frameMs
            deliveries.append(F.Delivery(arrivalMs: send + 5, bytes: F.rtp(sequence: sequence, timestamp: 50_000 + UInt32(frame * F.frameSamples),
                                                                            payload: packet), sendMs: send))
            sequence &+= 1
        }
        #expect(deliveries.count < 120)  // the noise mostly went untransmitted
        let jitterBuffer = try F.fixedDelayBuffer()
        let ticks = F.run(jitterBuffer, deliveries: deliveries, ticks: 152, keepAudio: true)
        // Ticks in the noise section (from 1.5 s on) that played comfort noise.
        let gapAudio = ticks.filter { $0.nowMs >= 1_500 && $0.event.kind == .comfortNoise }.flatMap(\.pcm)
        #expect(gapAudio.count >= 30 * F.frameSamples)
        func rms(_ samples: [Int16]) -> Double {
            (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, samples.count))).squareRoot()
        }
        let level = 20 * log10(max(rms(gapAudio), 1e-9) / rms(background))
        #expect(level > -12 && level < 6, "comfort noise \(level) dB against the sender's background")
        #expect(jitterBuffer.statistics.concealmentEvents == 0)
        #expect(jitterBuffer.statistics.packetsDiscarded == 0)
        #expect(jitterBuffer.statistics.silentConcealedSamples >= gapAudio.count)
    }

    @Test func overflowFlushes() throws {
        let buffer = try F.fixedDelayBuffer(capacity: 16)
        var deliveries = F.stream(count: 40)
        for index in 10..<40 { deliveries[index].arrivalMs = 1_000 }  // a stall, then a burst of 30
        let ticks = F.run(buffer, deliveries: deliveries, ticks: 70)
        // 1010…1025 fit; 1026 is 16 ahead of the next to play: flush, play on from 1026.
        #expect(buffer.statistics.flushes == 1)
        #expect(F.allStarted(ticks) == Self.range(1_000, count: 10) + Self.range(1_026, count: 14))
        // Catching up after the stall accelerates: some ticks start two packets.
        #expect(F.played(ticks).count < 24)
    }

    /// 10 ms ticks over 20 ms packets: each packet spans two ticks, and a lost packet's span
    /// is concealed in two ticks before the next merges in.
    @Test func packetsLongerThanTheTick() throws {
        var configuration = JitterBufferConfiguration()
        configuration.frameDurationMs = 10
        configuration.minimumDelayMs = 45
        configuration.maximumDelayMs = 45
        configuration.initialDelayMs = 45
        let buffer = try AdaptiveJitterBuffer(configuration: configuration)
        var deliveries = F.stream(count: 30, fec: false)
        deliveries.remove(at: 12)
        var pcm = [Int16](repeating: 0, count: 480)
        var events: [PlayoutEvent] = []
        var next = 0
        for tick in 0..<65 {  // playout starts at tick 5 (45 ms margin); 30 packets fill 60 ticks
            let now = Double(tick) * 10
            while next < deliveries.count && deliveries[next].arrivalMs <= now {
                deliveries[next].bytes.withUnsafeBytes { raw in
                    if let view = try? RTPPacketView(raw) { buffer.insert(view, arrivalTimeMs: deliveries[next].arrivalMs) }
                }
                next += 1
            }
            events.append(pcm.withUnsafeMutableBufferPointer { buffer.nextFrame(into: $0, nowMs: now) })
        }
        #expect(events.compactMap(\.sequenceNumber) == Self.range(1_000, count: 30).filter { $0 != 1_012 })
        #expect(buffer.statistics.concealmentEvents == 1)
        #expect(buffer.statistics.concealedSamples == 960)
        #expect(buffer.statistics.packetsDiscarded == 0)
        let merge = try #require(events.firstIndex { $0.kind == .merge })
        #expect(events[merge].sequenceNumber == 1_013)
        #expect(events[merge - 1].kind == .expand && events[merge - 2].kind == .expand)
    }

    @Test func invalidConfigurationNamesTheField() {
        func check(_ change: (inout JitterBufferConfiguration) -> Void, _ expected: JitterBufferError) {
            var configuration = JitterBufferConfiguration()
            change(&configuration)
            #expect(throws: expected) { try AdaptiveJitterBuffer(configuration: configuration) }
        }
        check({ $0.sampleRate = 44_100 }, .invalidSampleRate(44_100))
        check({ $0.frameDurationMs = 25 }, .invalidFrameDuration(25))
        check({ $0.minimumDelayMs = -1 }, .invalidMinimumDelay(-1))
        check({ $0.maximumDelayMs = 0 }, .invalidMaximumDelay(0))
        check({ $0.initialDelayMs = 2_000 }, .invalidInitialDelay(2_000))
        check({ $0.capacityPackets = 1 }, .invalidCapacity(1))
        for outside in [-1, 10_001, .infinity] {
            let pricing = PlayoutDelayPricing(delayOutsideBufferMs: outside)
            check({ $0.delayPricing = pricing }, .invalidDelayPricing(pricing))
        }
        for (impairment, robustness) in [(129.0, 6.7), (-1, 6.7), (32.9, 0.5)] {
            let pricing = PlayoutDelayPricing(codec: CodecImpairment(equipmentImpairment: impairment, packetLossRobustness: robustness))
            check({ $0.delayPricing = pricing }, .invalidDelayPricing(pricing))
        }
        for pricing in [PlayoutDelayPricing(delayOutsideBufferMs: .nan),
                        PlayoutDelayPricing(codec: CodecImpairment(equipmentImpairment: .nan, packetLossRobustness: 6.7))] {
            var configuration = JitterBufferConfiguration()
            configuration.delayPricing = pricing
            #expect(throws: JitterBufferError.self) { try AdaptiveJitterBuffer(configuration: configuration) }
        }
    }
}
