// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Foundation
import MediaEngine
import Testing
import TestSupport

/// With `PlayoutTick.devicePeriod` the mixer renders playback a device period at a time, and
/// each call's jitter buffer decodes on that period's lattice, counting each packet at its
/// arrival: a 20 ms call played on 10 ms periods hears a packet up to a period sooner than one
/// played a whole frame at a time, and sooner still when its packets come early in a period.
@Suite struct PeriodPlayoutTests {
    static let rate = 48_000

    /// Mouth-to-ear on the virtual clock, in ms, for each tone burst Alice speaks: two mixers
    /// (processing off) running 10 ms periods, Bob's playing `tick`, Alice's packets reaching
    /// Bob `linkDelayMs` after she sent them.
    static func burstDelaysMs(tick: PlayoutTick, linkDelayMs: Double) throws -> [Double] {
        var mixing = MixerConfiguration()
        mixing.processing = ProcessingConfiguration()
        mixing.compensatesDeviceDrift = false
        mixing.playoutTick = tick
        let periodMs = 10
        let aliceMixer = try CallMixer(configuration: mixing), bobMixer = try CallMixer(configuration: mixing)
        let alice = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 0xA11CE, rtcpSeed: 1)
        let bob = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 0xB0B, rtcpSeed: 2)
        try aliceMixer.add(alice)
        try bobMixer.add(bob)
        let period = rate * periodMs / 1_000
        let seconds = 12
        // A low noise floor (no DTX pauses) with a 1 kHz burst of 100 ms every 700 ms from 6 s on
        // (the jitter buffer has settled by then); 700 ms walks the bursts across the phases.
        var random = SeededGenerator(seed: 22)
        var microphone = (0..<(seconds * rate)).map { _ in Int16(Int.random(in: -30...30, using: &random)) }
        var spoken: [Int] = []
        var onset = 6 * rate
        while onset + rate / 2 < microphone.count {
            spoken.append(onset)
            for index in 0..<(rate / 10) {
                microphone[onset + index] = Int16(8_000 * sin(2 * Double.pi * 1_000 * Double(index) / Double(rate)))
            }
            onset += rate * 7 / 10
        }
        var inFlight: [(arrivalMs: Double, bytes: [UInt8])] = []
        var played: [Int16] = []
        var buffer = [Int16](repeating: 0, count: period)
        for tick in 0..<(seconds * rate / period) {
            let now = Double(tick * periodMs)
            while let first = inFlight.first, first.arrivalMs <= now {
                var bytes = first.bytes
                bytes.withUnsafeMutableBytes { bob.receiveDatagram($0, arrivalTimeMs: first.arrivalMs) }
                inFlight.removeFirst()
            }
            buffer.withUnsafeMutableBufferPointer { bobMixer.render(into: $0, nowMs: now) }
            played.append(contentsOf: buffer)
            buffer.withUnsafeMutableBufferPointer { aliceMixer.render(into: $0, nowMs: now) }
            // The period that ended now (a device delivers capture at the end of its period);
            // what Bob renders now starts playing now.
            if tick > 0 { microphone[((tick - 1) * period)..<(tick * period)].withUnsafeBufferPointer { aliceMixer.capture($0) } }
            alice.sendDatagrams(nowMs: now) { inFlight.append((now + linkDelayMs, Array($0))) }
            bob.sendDatagrams(nowMs: now) { _ in }
        }
        return spoken.compactMap { start in
            guard let heard = played[start...].firstIndex(where: { abs(Int($0)) > 2_000 }) else { return nil }
            return Double(heard - start) * 1_000 / Double(rate)
        }
    }

    @Test func aTwentyMillisecondCallPlayedByTheDevicePeriodIsHeardSooner() async throws {
        let phases = [0.5, 4.5, 8.5, 12.5, 16.5]
        let (framed, periodic) = try await offCooperativePool { () throws -> ([Double], [Double]) in
            let framed = try phases.map { try Self.burstDelaysMs(tick: .frame, linkDelayMs: $0) }
            let periodic = try phases.map { try Self.burstDelaysMs(tick: .devicePeriod, linkDelayMs: $0) }
            func mean(_ runs: [[Double]]) -> [Double] { runs.map { $0.reduce(0, +) / Double(max($0.count, 1)) } }
            #expect(framed.allSatisfy { $0.count == 8 } && periodic.allSatisfy { $0.count == 8 }, "every burst was heard")
            return (mean(framed), mean(periodic))
        }
        let figures: Comment = "mouth-to-ear by link delay \(phases): a frame per tick \(framed.map { Int($0.rounded()) }), a period per tick \(periodic.map { Int($0.rounded()) })"
        let framedMean = framed.reduce(0, +) / Double(framed.count)
        let periodicMean = periodic.reduce(0, +) / Double(periodic.count)
        // A frame (20) and the look-ahead (6.5) are the same in both; the jitter buffer's
        // lattice and the wait for the next render halve with the tick.
        #expect(periodicMean <= framedMean - 8, figures)
        for (framedDelay, periodicDelay) in zip(framed, periodic) { #expect(periodicDelay <= framedDelay + 1, figures) }
        // A period at a time, the jitter buffer counts a packet at its arrival, not at the period
        // that takes it in: one that came 9.5 or 5.5 ms before a period starts is played in it,
        // one that came 1.5 ms before (under `fineLatticeMinimumMarginMs`) a period later.
        // Counted at the period, all three waited that period (48, 48, 48 ms).
        #expect(periodic[0] <= periodic[2] - 8 && periodic[1] <= periodic[2] - 8, figures)
        print(figures)
    }

    /// On a device at another rate (44.1 kHz periods of 441 frames, resampled from the call's
    /// 48 kHz), playout by the period renders what each period lacks and the tone plays through
    /// whole: no period short, the level steady from one 100 ms stretch to the next.
    @Test func aResampledDeviceIsServedPeriodByPeriod() throws {
        var mixing = MixerConfiguration()
        mixing.processing = ProcessingConfiguration()
        mixing.compensatesDeviceDrift = false
        mixing.deviceSampleRate = 44_100
        mixing.playoutTick = .devicePeriod
        let mixer = try CallMixer(configuration: mixing)
        let alice = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 0xA11CE, rtcpSeed: 1)
        let bob = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil, ssrc: 0xB0B, rtcpSeed: 2)
        try mixer.add(bob)
        var played: [Int16] = []
        var period = [Int16](repeating: 0, count: 441)
        for tick in 0..<600 {  // 6 s of 10 ms periods
            let now = Double(tick * 10)
            if tick % 2 == 0 {  // Alice's 20 ms frame of a 500 Hz tone, delivered at once
                let frame = (0..<960).map { (index: Int) -> Int16 in
                    Int16(8_000 * sin(2 * Double.pi * 500 * Double(tick / 2 * 960 + index) / 48_000))
                }
                frame.withUnsafeBufferPointer { alice.send(microphone: $0) }
                alice.sendDatagrams(nowMs: now) { datagram in
                    var copy = Array(datagram)
                    copy.withUnsafeMutableBytes { bob.receiveDatagram($0, arrivalTimeMs: now) }
                }
            }
            period.withUnsafeMutableBufferPointer { mixer.render(into: $0, nowMs: now) }
            played += period
        }
        let settled = Array(played[(2 * 44_100)...])
        let levels = stride(from: 0, to: settled.count - 4_410, by: 4_410).map {
            SignalComparison.toneAmplitude(settled[$0..<($0 + 4_410)], frequencyHz: 500, sampleRate: 44_100)
        }
        let figures: Comment = "500 Hz amplitude per 100 ms: \(levels.map { Int($0) })"
        #expect(levels.allSatisfy { $0 > 6_000 && $0 < 10_000 }, figures)
        #expect(bob.statistics.inbound.concealedSamples == 0, "nothing concealed: \(bob.statistics.inbound.concealedSamples)")
    }
}
