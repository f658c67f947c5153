// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MediaEngine
import LatencyEvaluation
import MediaEngineTesting
import SRTP
import TestSupport
import Transport

/// `benchmarks engine`: what the engine's threads cost. Two `VoiceEngine`s call each other
/// with `calls` calls each over UDP on loopback with SRTP, on virtual devices paced in real
/// time (speech in, playback discarded), voiceChat processing — and the same work on the
/// virtual clock on one thread: the same mixers and calls, the datagrams handed from one
/// call to the other in memory. CPU time of the whole process (both threads of both
/// engines) per call per second of audio; the ratio is what the threads, queues, sockets and
/// pacing add.
struct EngineBenchmarks {
    static let group = "engine"
    let report: Report
    /// Seconds of audio per run.
    var seconds = 6

    /// CPU time (user + system) of the whole process, in seconds.
    static func processCPUSeconds() -> Double { MouthToEarMeasurement.processCPUSeconds() }

    static func configuration(device: VirtualAudioDevice, maximumCalls: Int) -> VoiceEngineConfiguration {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "virtual", backend: device)
        configuration.realtimePriority = nil
        configuration.trafficClass = nil
        configuration.mixer.maximumCalls = maximumCalls
        return configuration
    }

    /// CPU ms per call per second of audio with `calls` calls per engine on real threads.
    func threaded(calls: Int, speech: [Int16]) throws -> Double {
        let source = WAVAudio(sampleRate: 48_000, channelCount: 1, samples: speech)
        let alice = try VoiceEngine(configuration: Self.configuration(device: .wavFile(source, loops: true, recordsPlayback: false), maximumCalls: calls))
        let bob = try VoiceEngine(configuration: Self.configuration(device: .wavFile(source, loops: true, recordsPlayback: false), maximumCalls: calls))
        for _ in 0..<calls {
            let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
            let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
            let (aliceSocket, bobSocket) = try LoopbackSocketPair.make()
            try alice.addCall(try CallMedia(configuration: MediaConfiguration(), sendingKey: aliceKey, receivingKey: bobKey),
                              transport: CallTransport(rtp: aliceSocket))
            try bob.addCall(try CallMedia(configuration: MediaConfiguration(), sendingKey: bobKey, receivingKey: aliceKey),
                            transport: CallTransport(rtp: bobSocket))
        }
        try alice.start()
        try bob.start()
        // Let both settle, then measure.
        MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 1_000_000_000)
        let cpuBefore = Self.processCPUSeconds(), wallBefore = MonotonicClock.nanoseconds
        MonotonicClock.sleep(untilNanoseconds: wallBefore + Int64(seconds) * 1_000_000_000)
        let cpu = Self.processCPUSeconds() - cpuBefore
        let audioSeconds = Double(MonotonicClock.nanoseconds - wallBefore) / 1e9
        alice.shutdown()
        bob.shutdown()
        return cpu * 1_000 / (audioSeconds * Double(2 * calls))
    }

    /// The same work on one thread on the virtual clock: CPU ms per call per second of audio.
    func virtualClock(calls: Int, speech: [Int16]) throws -> Double {
        var mixing = MixerConfiguration()
        mixing.maximumCalls = calls
        let mixers = try [CallMixer(configuration: mixing), CallMixer(configuration: mixing)]
        var pairs: [(CallMedia, CallMedia)] = []
        for _ in 0..<calls {
            let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
            let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
            let pair = (try CallMedia(configuration: MediaConfiguration(), sendingKey: aliceKey, receivingKey: bobKey),
                        try CallMedia(configuration: MediaConfiguration(), sendingKey: bobKey, receivingKey: aliceKey))
            try mixers[0].add(pair.0)
            try mixers[1].add(pair.1)
            pairs.append(pair)
        }
        let period = 480
        var playback = [Int16](repeating: 0, count: period)
        var datagram = [UInt8](repeating: 0, count: 1_500)
        func deliver(from sender: CallMedia, to receiver: CallMedia, nowMs: Double) {
            sender.sendDatagrams(nowMs: nowMs) { bytes in
                datagram.withUnsafeMutableBytes { buffer in
                    buffer.copyMemory(from: bytes)
                    receiver.receiveDatagram(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<bytes.count]), arrivalTimeMs: nowMs)
                }
            }
        }
        let periods = (seconds + 1) * 100
        var cpuBefore = 0.0
        for index in 0..<periods {
            if index == 100 { cpuBefore = Self.processCPUSeconds() }  // the same settling second
            let nowMs = Double(index) * 10
            let start = (index * period) % max(1, speech.count - period)
            for mixer in mixers {
                speech.withUnsafeBufferPointer { mixer.capture(UnsafeBufferPointer(rebasing: $0[start..<(start + period)])) }
                playback.withUnsafeMutableBufferPointer { mixer.render(into: $0, nowMs: nowMs) }
            }
            for (alice, bob) in pairs {
                deliver(from: alice, to: bob, nowMs: nowMs)
                deliver(from: bob, to: alice, nowMs: nowMs)
            }
        }
        let cpu = Self.processCPUSeconds() - cpuBefore
        return cpu * 1_000 / (Double(seconds) * Double(2 * calls))
    }

    func run() throws {
        report.beginGroup(Self.group, baseline: "the same calls on the virtual clock, one thread, datagrams in memory")
        let speech = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        for calls in [1, 4] {
            let single = try virtualClock(calls: calls, speech: speech)
            let threads = try threaded(calls: calls, speech: speech)
            report.add(BenchmarkFigure(group: Self.group, name: "\(calls) call\(calls == 1 ? "" : "s") per engine, real threads",
                                       value: threads, unit: "ms CPU/call·s", baseline: "one thread, virtual clock",
                                       baselineValue: single, ratio: threads / single))
        }
        try mouthToEar()
    }

    /// Mouth-to-ear delay (`voicecall latency`'s measurement: two engines, real threads, UDP and
    /// SRTP on loopback, voiceChat, eight calls at phases spread over the period) for 20 and
    /// 10 ms frames × 10 and 5 ms periods, each beside
    /// its floor (`MouthToEarFloor`), and the CPU each configuration costs, played a period at
    /// a time (`PlayoutTick.devicePeriod`, the default); the configurations whose period is
    /// shorter than the frame also a frame at a time (`.frame`), where the two differ.
    func mouthToEar() throws {
        let configurations: [(frameMs: Int, periodMs: Int, tick: PlayoutTick)] = [
            (20, 10, .devicePeriod), (20, 10, .frame), (20, 5, .devicePeriod), (20, 5, .frame),
            (10, 10, .devicePeriod), (10, 5, .devicePeriod), (10, 5, .frame),
        ]
        for (frameMs, periodMs, tick) in configurations {
            var measurement = MouthToEarMeasurement()
            measurement.frameMs = frameMs
            measurement.periodMs = periodMs
            measurement.playoutTick = tick
            let result = try measurement.run()
            let name = "\(frameMs) ms frames, \(periodMs) ms periods" + (tick == .frame ? ", played a frame at a time" : "")
            report.add(BenchmarkFigure(group: Self.group, name: "mouth-to-ear, \(name)", value: result.meanMs, unit: "ms",
                                       baseline: "floor of the configuration", baselineValue: result.floor.totalMs,
                                       ratio: result.meanMs / result.floor.totalMs))
            report.add(BenchmarkFigure(group: Self.group, name: "CPU, \(name)", value: result.cpuMsPerSecond / 2, unit: "ms CPU/call·s"))
        }
    }
}
