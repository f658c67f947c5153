// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import COpus
import CBaseline
import CSpeexDSP
import COpusShims
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import JitterBuffer
import MediaEngine
import Opus
import RTP
import TestSupport

/// `benchmarks call`: what one call costs on the audio thread, per 20 ms frame of a full-duplex
/// call with voiceChat processing (receive one packet, render, capture, encode), against the
/// raw C calls that do the same signal work on the same data in the same run — `opus_decode`
/// + `opus_encode` + twice (10 ms sub-frames) `speex_echo_cancellation` +
/// `speex_preprocess_run` with denoise, AGC and VAD on. Our own stages (delay estimator,
/// residual echo suppressor, jitter buffer logic) are measured alone on the same data and
/// reported as rows, so the C-backed part of our cost is the total less them.
///
/// Then 1, 10, 50 and 100 calls on the virtual clock, each with its own mixer (a softphone
/// per call, the worst case): cost per call per frame, and heap bytes per call.
struct CallBenchmarks {
    static let group = "call"
    let comparison: Comparison
    let report: Report

    /// Frames per round and the packets and microphone frames they use.
    static let frames = 200
    static let frameCount = 960

    /// An RTP stream of the speech fixture as a far end sends it (plain RTP, default settings).
    static func packets(_ speech: [Int16]) throws -> [[UInt8]] {
        let uplink = try UplinkPipeline(configuration: MediaConfiguration(), ssrc: 0x5EED, initialSequenceNumber: 1, initialTimestamp: 0)
        return try (0..<frames).map { index in
            let frame = Array(speech[(index * frameCount)..<((index + 1) * frameCount)])
            return try frame.withUnsafeBufferPointer { pcm in
                guard let packet = try uplink.process(pcm) else { return [] }
                return Array(packet.buffer[0..<packet.length])
            }
        }
    }

    /// One softphone: a voiceChat mixer with one plain-RTP call, fed a packet and a
    /// microphone frame per tick.
    final class Endpoint {
        let mixer: CallMixer
        let call: CallMedia
        var tick = 0
        /// A softphone with its own voiceChat mixer.
        init() throws {
            mixer = try CallMixer(configuration: MixerConfiguration())
            call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
            try mixer.add(call)
        }

        /// A call in a mixer shared with others.
        init(sharing mixer: CallMixer) throws {
            self.mixer = mixer
            call = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
            try mixer.add(call)
        }

        var nowMs: Double { Double(tick) * 20 }

        /// The network side: one packet arrives.
        func receive(_ packet: UnsafeMutableRawBufferPointer) {
            call.receiveDatagram(packet, arrivalTimeMs: nowMs)
        }

        /// The audio side: the mixer renders and captures one frame.
        func play(microphone: UnsafeBufferPointer<Int16>, playback: UnsafeMutableBufferPointer<Int16>) {
            mixer.render(into: playback, nowMs: nowMs)
            mixer.capture(microphone)
        }

        /// The network side: what was encoded leaves; the frame ends.
        func send() {
            call.sendDatagrams(nowMs: nowMs) { _ in }
            tick += 1
        }

        /// One whole frame of a softphone.
        func frame(packet: UnsafeMutableRawBufferPointer, microphone: UnsafeBufferPointer<Int16>, playback: UnsafeMutableBufferPointer<Int16>) {
            receive(packet)
            play(microphone: microphone, playback: playback)
            send()
        }
    }

    func run() throws {
        report.beginGroup(Self.group, baseline: "raw opus + speexdsp calls on the same data")
        let far = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)
        let near = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: 48_000)
        let path = EchoPath(sampleRate: 48_000, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, seed: 11)
        let echo = path.echo(of: Array(far.prefix(Self.frames * Self.frameCount)))
        // The microphone: the near end's speech plus the echo of the far end (double talk).
        let microphone = zip(near.prefix(Self.frames * Self.frameCount), echo).map { Int16(clamping: Int($0) + Int($1)) }
        let stream = try Self.packets(far)
        let packetBytes = stream.flatMap { $0 }
        var offsets: [Int] = [0]
        for packet in stream { offsets.append(offsets.last! + packet.count) }
        let total = try fullCall(microphone: microphone, far: far, stream: stream, packetBytes: packetBytes, offsets: offsets)
        let stages = try ownStages(microphone: microphone, far: far, stream: stream)
        let cBacked = total.ours - stages
        report.add(BenchmarkFigure(group: Self.group, name: "C-backed part (total less our stages)", value: cBacked, unit: "us/frame",
                                   baseline: "raw C calls", baselineValue: total.baseline, ratio: cBacked / total.baseline))
        try concurrentCalls(microphone: microphone, stream: stream)
    }

    /// The whole per-frame path of one call against the raw C calls.
    private func fullCall(microphone: [Int16], far: [Int16], stream: [[UInt8]], packetBytes: [UInt8], offsets: [Int]) throws -> Comparison.Result {
        var endpoint = try Endpoint()
        var scratch = [UInt8](repeating: 0, count: 1_500)
        var playback = [Int16](repeating: 0, count: Self.frameCount)
        // Raw C state with the same settings.
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(48_000, 1, OPUS_APPLICATION_VOIP, &error),
              let decoder = opus_decoder_create(48_000, 1, &error) else { throw BenchmarkError.setup("opus state") }
        defer { opus_encoder_destroy(encoder); opus_decoder_destroy(decoder) }
        try configure(encoder)
        let sub = 480
        guard let echoState = speex_echo_state_init(Int32(sub), Int32(48_000 * 200 / 1_000)),
              let preprocess = speex_preprocess_state_init(Int32(sub), 48_000) else { throw BenchmarkError.setup("speex state") }
        defer { speex_echo_state_destroy(echoState); speex_preprocess_state_destroy(preprocess) }
        var rate: Int32 = 48_000, one: Int32 = 1, noise: Int32 = -15, level: Float = 8_000
        _ = speex_echo_ctl(echoState, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_DENOISE, &one)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &noise)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_AGC, &one)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level)
        _ = speex_preprocess_ctl(preprocess, SPEEX_PREPROCESS_SET_VAD, &one)
        var cleaned = [Int16](repeating: 0, count: Self.frameCount)
        var decoded = [Int16](repeating: 0, count: Self.frameCount)
        let result = microphone.withUnsafeBufferPointer { mic in
            far.withUnsafeBufferPointer { farBuffer in
                packetBytes.withUnsafeBufferPointer { bytes in
                    playback.withUnsafeMutableBufferPointer { out in
                        scratch.withUnsafeMutableBytes { work in
                            cleaned.withUnsafeMutableBufferPointer { clean in
                                decoded.withUnsafeMutableBufferPointer { dec in
                                    comparison.run(operations: Self.frames, prepare: { endpoint = try! Endpoint() }, ours: {
                                        for index in 0..<Self.frames {
                                            let length = offsets[index + 1] - offsets[index]
                                            work.baseAddress!.copyMemory(from: bytes.baseAddress! + offsets[index], byteCount: length)
                                            endpoint.frame(packet: UnsafeMutableRawBufferPointer(rebasing: work[0..<length]),
                                                           microphone: UnsafeBufferPointer(rebasing: mic[(index * 960)..<((index + 1) * 960)]),
                                                           playback: out)
                                        }
                                    }, baseline: {
                                        for index in 0..<Self.frames {
                                            let length = offsets[index + 1] - offsets[index]
                                            // RTP header is 12 bytes: the payload follows.
                                            _ = opus_decode(decoder, bytes.baseAddress! + offsets[index] + 12, Int32(length - 12), dec.baseAddress!, 960, 0)
                                            for half in 0..<2 {
                                                let offset = index * 960 + half * sub
                                                speex_echo_cancellation(echoState, mic.baseAddress! + offset, farBuffer.baseAddress! + offset,
                                                                        clean.baseAddress! + half * sub)
                                                _ = speex_preprocess_run(preprocess, clean.baseAddress! + half * sub)
                                            }
                                            _ = opus_encode(encoder, clean.baseAddress!, 960, work.baseAddress!.assumingMemoryBound(to: UInt8.self), 1_275)
                                        }
                                    })
                                }
                            }
                        }
                    }
                }
            }
        }
        report.add(group: Self.group, name: "full-duplex call, voiceChat, per frame", unit: "us/frame", baseline: "raw C calls", result: result)
        return result
    }

    /// The settings `UplinkPipeline` applies, through the same C shims.
    private func configure(_ encoder: OpaquePointer) throws {
        let settings = MediaConfiguration()
        for status in [ve_opus_encoder_set_bitrate(encoder, Int32(settings.bitrate)),
                       ve_opus_encoder_set_complexity(encoder, Int32(settings.complexity)),
                       ve_opus_encoder_set_inband_fec(encoder, settings.inbandFEC ? 1 : 0),
                       ve_opus_encoder_set_packet_loss_perc(encoder, Int32(settings.expectedPacketLossPercent))] where status != OPUS_OK {
            throw BenchmarkError.setup("opus ctl \(status)")
        }
    }

    /// Our own stages alone on the same data, µs per 20 ms frame; returns their sum.
    private func ownStages(microphone: [Int16], far: [Int16], stream: [[UInt8]]) throws -> Double {
        var sum = 0.0
        let sub = 480
        // Delay estimator: two 10 ms blocks per frame.
        var estimator = DelayEstimator(sampleRate: 48_000)
        var residual = ResidualEchoSuppressor(frameCount: sub, sampleRate: 48_000)
        var buffer = try AdaptiveJitterBuffer(configuration: JitterBufferConfiguration())
        let decoder = try OpusDecoder(sampleRate: 48_000, channels: 1)
        var output = [Int16](repeating: 0, count: 960)
        let rows: [(String, () -> Void, () -> Void)] = [
            ("our stage: delay estimator", { estimator = DelayEstimator(sampleRate: 48_000) }, {
                microphone.withUnsafeBufferPointer { mic in
                    far.withUnsafeBufferPointer { farBuffer in
                        for block in 0..<(2 * Self.frames) {
                            let range = (block * sub)..<((block + 1) * sub)
                            _ = estimator.process(farEnd: UnsafeBufferPointer(rebasing: farBuffer[range]), microphone: UnsafeBufferPointer(rebasing: mic[range]))
                        }
                    }
                }
            }),
            ("our stage: residual echo suppressor", { residual = ResidualEchoSuppressor(frameCount: sub, sampleRate: 48_000) }, {
                microphone.withUnsafeBufferPointer { mic in
                    far.withUnsafeBufferPointer { farBuffer in
                        output.withUnsafeMutableBufferPointer { out in
                            for block in 0..<(2 * Self.frames) {
                                residual.process(microphone: mic.baseAddress! + block * sub, linearOutput: mic.baseAddress! + block * sub,
                                                 farEnd: farBuffer.baseAddress! + block * sub, output: out.baseAddress!)
                            }
                        }
                    }
                }
            }),
            ("our stage: jitter buffer (decode included)", { buffer = try! AdaptiveJitterBuffer(configuration: JitterBufferConfiguration()) }, {
                output.withUnsafeMutableBufferPointer { out in
                    for (index, packet) in stream.enumerated() {
                        packet.withUnsafeBytes { bytes in
                            if let view = try? RTPPacketView(bytes) { buffer.insert(view, arrivalTimeMs: Double(index) * 20) }
                        }
                        _ = buffer.nextFrame(into: out, nowMs: Double(index) * 20)
                    }
                }
            }),
        ]
        var jitterBuffer = 0.0
        for (name, prepare, body) in rows {
            // Measured against nothing: each stage's cost on its own (baseline column empty).
            let result = comparison.run(operations: Self.frames, prepare: prepare, ours: body, baseline: {})
            report.add(BenchmarkFigure(group: Self.group, name: name, value: result.ours, unit: "us/frame", baseline: "none",
                                       baselineValue: nil, ratio: nil))
            if name.contains("jitter") { jitterBuffer = result.ours } else { sum += result.ours }
        }
        // The jitter buffer's logic is what it costs beyond the decode inside it.
        let decodeOnly = comparison.run(operations: Self.frames, prepare: { try? decoder.reset() }, ours: {
            output.withUnsafeMutableBufferPointer { out in
                for packet in stream {
                    packet.withUnsafeBytes { bytes in _ = try? decoder.decode(UnsafeRawBufferPointer(rebasing: bytes[12...]), into: out) }
                }
            }
        }, baseline: {})
        report.add(BenchmarkFigure(group: Self.group, name: "our stage: jitter buffer logic (less decode)", value: jitterBuffer - decodeOnly.ours,
                                   unit: "us/frame", baseline: "none", baselineValue: nil, ratio: nil))
        sum += jitterBuffer - decodeOnly.ours
        return sum
    }

    /// 1, 10, 50 and 100 calls run frame by frame on the virtual clock, two ways: all in one
    /// mixer with processing off (a gateway or conference host: the per-call path — jitter
    /// buffer, decode, bridge, encode, RTP — and nothing shared), and one voiceChat softphone
    /// per call (each with its own echo canceller: the memory-heaviest case). Cost per call per
    /// frame against the cost at one call, and resident memory per call.
    private func concurrentCalls(microphone: [Int16], stream: [[UInt8]]) throws {
        for shared in [true, false] {
            var perCallAtOne = 0.0
            for count in [1, 10, 50, 100] {
                let memoryBefore = Self.heapBytes()
                var mixerMemory = 0
                let endpoints: [Endpoint]
                if shared {
                    var configuration = MixerConfiguration()
                    configuration.processing = ProcessingConfiguration()
                    configuration.maximumCalls = count
                    let mixer = try CallMixer(configuration: configuration)
                    mixerMemory = Self.heapBytes() - memoryBefore
                    endpoints = try (0..<count).map { _ in try Endpoint(sharing: mixer) }
                } else {
                    endpoints = try (0..<count).map { _ in try Endpoint() }
                }
                var scratch = [UInt8](repeating: 0, count: 1_500)
                var playback = [Int16](repeating: 0, count: Self.frameCount)
                let frames = 100
                let memoryPerCallMeasured = Double(Self.heapBytes() - memoryBefore - mixerMemory) / Double(count)
                let result = microphone.withUnsafeBufferPointer { mic in
                    playback.withUnsafeMutableBufferPointer { out in
                        scratch.withUnsafeMutableBytes { work in
                            comparison.run(operations: frames * count, ours: {
                                for _ in 0..<frames {
                                    for endpoint in endpoints {
                                        let packet = stream[endpoint.tick % stream.count]
                                        work.copyBytes(from: packet)
                                        endpoint.receive(UnsafeMutableRawBufferPointer(rebasing: work[0..<packet.count]))
                                    }
                                    let frameIndex = endpoints[0].tick % Self.frames
                                    let spoken = UnsafeBufferPointer(rebasing: mic[(frameIndex * 960)..<((frameIndex + 1) * 960)])
                                    if shared {
                                        endpoints[0].play(microphone: spoken, playback: out)
                                    } else {
                                        for endpoint in endpoints { endpoint.play(microphone: spoken, playback: out) }
                                    }
                                    for endpoint in endpoints { endpoint.send() }
                                }
                            }, baseline: {})
                        }
                    }
                }
                // The calls' heap, taken before running (a shared mixer's own buffers not counted
                // per call; allocation-free running adds nothing).
                let memoryPerCall = memoryPerCallMeasured
                if count == 1 { perCallAtOne = result.ours }
                let label = shared ? "one mixer, \(count) calls" : "\(count) voiceChat softphones"
                report.add(BenchmarkFigure(group: Self.group, name: label + ": cost per call", value: result.ours, unit: "us/frame",
                                           baseline: "1 call", baselineValue: perCallAtOne, ratio: result.ours / perCallAtOne))
                report.add(BenchmarkFigure(group: Self.group, name: label + ": memory per call", value: memoryPerCall / 1_024, unit: "KiB",
                                           baseline: "none", baselineValue: nil, ratio: nil))
            }
        }
    }

    /// Heap bytes in use (glibc `mallinfo2`, through CBaseline): the difference around
    /// creating the calls is what they hold.
    static func heapBytes() -> Int { Int(cbase_heap_bytes_in_use()) }
}
