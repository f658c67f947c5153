// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import AudioProcessing
import Foundation
import MediaEngine
import Opus
import SRTP
import Transport

/// Mouth-to-ear latency of a call between two `VoiceEngine`s in this process, on real
/// threads, real UDP on loopback and SRTP, on a clean network: chirps put into Alice's
/// microphone are found in what Bob's loudspeaker played (the lag of best correlation, so a
/// gain that voice processing ramps up does not move the answer), and the two device clocks
/// say when each passed (a virtual device's frame times:
/// `VirtualAudioDevice.time(ofFrame:direction:)`). Also the time from `start()` to the first
/// captured and played periods, the floor of the configuration (`MouthToEarFloor`) and the CPU
/// the two engines spent. `voicecall latency` and `benchmarks engine` run it.
///
/// What a burst's delay depends on is where Bob's playback periods fall against the end of
/// Alice's frames (a frame's samples wait for its end, and its packet for Bob's next period):
/// in one call that phase is fixed, whatever the burst's own phase, and two engines started
/// back to back always had the worst one (the packet just after Bob's wake-up: a whole period
/// more than the floor's half). A real call's phase is anyone's, so the call is made
/// `phases` times, Alice's devices starting a further share of a period after Bob's each
/// time, and the delay is the mean over all (`Result.phases` keeps each call's). The phases
/// are exact (`VirtualAudioDevice.alignStarts`): the delay falls a millisecond for each
/// millisecond of phase until the packet misses Bob's period and waits a whole one more, so
/// N evenly spaced phases sample that saw-tooth within ±period/2N of its mean.
public struct MouthToEarMeasurement: Sendable {
    /// Device period, ms.
    public var periodMs = 10
    /// Opus frame (ptime), ms: 10 or 20.
    public var frameMs = 20
    /// Length of each call, s (bursts from 1.5 s on, one a second).
    public var seconds = 4
    /// Calls made, at phases of Bob's playback period against Alice's capture spread evenly
    /// over the period (1…16).
    public var phases = 8
    /// Voice processing on both sides (voiceChat: what a call runs).
    public var processing = ProcessingMode.voiceChat
    /// How much of the call each mixer renders at a time (`MixerConfiguration.playoutTick`).
    public var playoutTick = MixerConfiguration().playoutTick
    /// The ALSA PCM Bob plays on, nil for a virtual device. It must loop what it plays back to
    /// its capture (a PulseAudio null sink whose monitor is the default source,
    /// `scripts/pulseaudio-loopback`): the measurement captures it there to find the bursts
    /// (`SoundServerMonitor`), and reports the server's buffering (`Result.soundServerMs`)
    /// apart from the engine's.
    public var device: String? = nil

    /// Voice processing on both sides: a call's, the same with the low-latency residual echo
    /// suppressor (`EchoCanceller.Configuration.residualFilterHalfLengthMs`) or with the
    /// suppressor on 5 ms hops (`EchoCanceller.Configuration.residualHopMs`), or none.
    public enum ProcessingMode: Sendable { case voiceChat, voiceChatLowLatencyEchoSuppression, voiceChatShortEchoHop, off }

    /// The defaults: 10 ms periods, 20 ms frames, eight calls of 4 s, voiceChat.
    public init() {}

    /// One call's delay at one phase.
    public struct Phase: Sendable {
        /// How long after the start of a period of Bob's playback Alice's capture periods
        /// start, ms (as the two device clocks say; NaN on a real device, whose clock is its
        /// server's).
        public var offsetMs: Double
        /// Mean mouth to ear of the bursts found in this call, ms (NaN when none was).
        public var meanMs: Double
    }

    /// Where the bursts' time went, over every call.
    public struct Result: Sendable {
        /// Mouth to ear of each burst found, ms.
        public var mouthToEarMs: [Double]
        /// Each call's phase and mean delay.
        public var phases: [Phase] = []
        /// From `start()` to the first period captured (Alice), ms.
        public var firstCaptureMs: Double
        /// From `start()` to the first period played (Bob), ms.
        public var firstPlaybackMs: Double
        /// A sample's mean wait for the end of its capture period (half a period), ms: a burst's
        /// delay does not depend on where in the period it starts (every sample of a frame
        /// waits for the frame's end and plays as far into it), so this is the share, not a
        /// reading of the few bursts' onsets.
        public var captureBufferingMs: Double
        /// The jitter buffer's mean wait of played samples, ms.
        public var jitterBufferMs: Double
        /// Half the RTCP round trip, ms.
        public var networkMs: Double
        /// The playback ring's period and the device buffer, ms.
        public var playbackBufferingMs: Double
        /// The least this configuration could take on this network.
        public var floor: MouthToEarFloor
        /// With a real device (`MouthToEarMeasurement.device`): the sound server's share of the
        /// delay, ms — what Bob's engine had written and the server not yet played (its
        /// playback `snd_pcm_delay`, sampled through the call). The rest is the engine's.
        public var soundServerMs: Double? = nil
        /// CPU time (user + system) of the whole process per second of the call, ms: both
        /// engines, one call each.
        public var cpuMsPerSecond: Double
        /// Bursts put in.
        public var bursts: Int

        /// Mean mouth to ear, ms (NaN when no burst was found).
        public var meanMs: Double { mouthToEarMs.isEmpty ? .nan : mouthToEarMs.reduce(0, +) / Double(mouthToEarMs.count) }

        /// What the measured parts do not account for: the wait for a whole frame, voice
        /// processing's own latency (the residual echo suppressor's frame), encoding, the
        /// network thread's wake-up and the mixer rendering a frame ahead of the device.
        public var framingAndProcessingMs: Double {
            meanMs - captureBufferingMs - jitterBufferMs - networkMs - playbackBufferingMs
        }
    }

    /// The devices' rate.
    public static let rate = 48_000
    static let burstMs = 60
    static let firstBurstMs = 1_500
    /// Bursts are this far apart: not a whole number of periods, so they sample every phase.
    static let burstIntervalMs = 1_003
    /// The longest latency searched for, ms.
    static let maximumLatencyMs = 400

    /// A chirp from 300 Hz to 3.4 kHz at −6 dBFS, with 5 ms fades: one sharp correlation peak.
    public static let burst: [Int16] = {
        let count = burstMs * rate / 1_000, fade = rate / 200
        return (0..<count).map { index in
            let time = Double(index) / Double(rate), duration = Double(count) / Double(rate)
            let phase = 2 * Double.pi * (300 * time + (3_400 - 300) * time * time / (2 * duration))
            let envelope = min(1, Double(min(index, count - 1 - index)) / Double(fade))
            return Int16(16_000 * envelope * sin(phase))
        }
    }()

    /// The source: silence with a chirp every `burstIntervalMs`.
    public func source() -> (samples: [Int16], onsets: [Int]) {
        var samples = [Int16](repeating: 0, count: seconds * Self.rate)
        var onsets: [Int] = []
        var onset = Self.firstBurstMs * Self.rate / 1_000
        while onset + Self.rate / 2 < samples.count {
            onsets.append(onset)
            for (index, sample) in Self.burst.enumerated() { samples[onset + index] = sample }
            onset += Self.burstIntervalMs * Self.rate / 1_000
        }
        return (samples, onsets)
    }

    /// Makes the calls (real time: `phases` × `seconds`) and measures them: the bursts of every
    /// call, the parts of the delay averaged over the calls.
    public func run() throws -> Result {
        let count = min(max(phases, 1), 16)
        var calls: [Result] = []
        for index in 0..<count {
            calls.append(try call(startingAliceAfterMs: Double(periodMs) * Double(index) / Double(count)))
        }
        func mean(_ part: (Result) -> Double) -> Double { calls.map(part).reduce(0, +) / Double(calls.count) }
        let floor = MouthToEarFloor(periodMs: Double(periodMs), frameMs: Double(frameMs), codecLookaheadMs: calls[0].floor.codecLookaheadMs,
                                    networkMs: mean(\.floor.networkMs), jitterMarginMs: mean(\.floor.jitterMarginMs))
        var result = Result(mouthToEarMs: calls.flatMap(\.mouthToEarMs), firstCaptureMs: mean(\.firstCaptureMs),
                            firstPlaybackMs: mean(\.firstPlaybackMs), captureBufferingMs: mean(\.captureBufferingMs),
                            jitterBufferMs: mean(\.jitterBufferMs), networkMs: mean(\.networkMs),
                            playbackBufferingMs: mean(\.playbackBufferingMs), floor: floor,
                            cpuMsPerSecond: mean(\.cpuMsPerSecond), bursts: calls.map(\.bursts).reduce(0, +))
        result.phases = calls.flatMap(\.phases)
        if device != nil { result.soundServerMs = mean { $0.soundServerMs ?? .nan } }
        return result
    }

    /// One call (real time: `seconds` long), Alice's devices started `delayMs` after Bob's.
    private func call(startingAliceAfterMs delayMs: Double) throws -> Result {
        let (samples, onsets) = source()
        let aliceDevice = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: Self.rate, channelCount: 1, samples: samples),
                                                     recordsPlayback: false)
        let bobDevice = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: Self.rate, channelCount: 1, samples: []),
                                                   recordingCapacitySamples: (seconds + 2) * Self.rate)
        // On a real device, what the server played comes back through its monitor.
        let monitor = try device.map { try SoundServerMonitor(device: $0, rate: Self.rate, periodMs: periodMs, seconds: seconds) }
        let bobOpener = device.map { AudioDeviceOpener.alsa($0) } ?? AudioDeviceOpener(name: "bob", backend: bobDevice)
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let alice = try Party(device: AudioDeviceOpener(name: "alice", backend: aliceDevice), sendingKey: aliceKey, receivingKey: bobKey,
                              periodMs: periodMs, frameMs: frameMs, processing: processing, playoutTick: playoutTick)
        let bob = try Party(device: bobOpener, sendingKey: bobKey, receivingKey: aliceKey,
                            periodMs: periodMs, frameMs: frameMs, processing: processing, playoutTick: playoutTick)
        try alice.socket.setRemote(bob.socket.localEndpoint)
        try bob.socket.setRemote(alice.socket.localEndpoint)
        let bobCall = try bob.engine.addCall(bob.call, transport: CallTransport(rtp: bob.socket))
        try alice.engine.addCall(alice.call, transport: CallTransport(rtp: alice.socket))
        try bob.engine.start()
        // Alice speaks once Bob's device runs: a sound server may deliver its first periods
        // late (PulseAudio's first capture comes about a second after start), and what Alice
        // sent meanwhile would reach Bob's jitter buffer as one burst.
        let deviceDeadline = MonotonicClock.nanoseconds + 3_000_000_000
        while bob.engine.timeToFirstAudio.capture == nil || bob.engine.timeToFirstAudio.playback == nil,
              MonotonicClock.nanoseconds < deviceDeadline {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 1_000_000)
        }
        MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + Int64(delayMs * 1e6))
        // The sleep puts Alice's start about `delayMs` into Bob's period; on a loaded machine
        // the thread may wake later, so her device's clock starts on that phase exactly.
        aliceDevice.alignStarts(to: bobDevice.time(ofFrame: 0, direction: .playback).flatMap { device == nil ? $0 : nil },
                                offsetNanoseconds: Int64(delayMs * 1e6))
        try alice.engine.start()
        let cpuBefore = Self.processCPUSeconds(), wallBefore = MonotonicClock.nanoseconds
        // Sample Bob's playback buffering while the call runs.
        var playbackDelays: [Double] = []
        let end = MonotonicClock.nanoseconds + Int64(seconds) * 1_000_000_000
        // The jitter buffer's wait is counted from just before the first burst, as the bursts
        // measure the call: its start-up (a wider target, then accelerated away) is not theirs.
        let firstBurst = wallBefore + Int64(Self.firstBurstMs - 200) * 1_000_000
        var beforeFirstBurst: InboundRTPStatistics?
        while MonotonicClock.nanoseconds < end {
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 50_000_000)
            if beforeFirstBurst == nil && MonotonicClock.nanoseconds >= firstBurst {
                beforeFirstBurst = bob.engine.statistics(of: bobCall)?.inbound
            }
            monitor?.drain()
            if let playback = bob.engine.deviceStatistics(.playback) {
                playbackDelays.append(Double(playback.delayFrames) * 1_000 / Double(Self.rate))
            }
        }
        let firstCapture = alice.engine.timeToFirstAudio.capture ?? .nan
        let firstPlayback = bob.engine.timeToFirstAudio.playback ?? .nan
        let statistics = bob.engine.statistics(of: bobCall)
        let cpuMsPerSecond = (Self.processCPUSeconds() - cpuBefore) * 1e12 / Double(max(MonotonicClock.nanoseconds - wallBefore, 1))
        alice.engine.stop()
        bob.engine.stop()
        monitor?.stop()

        let heard = monitor?.samples ?? bobDevice.recording().samples
        /// When Bob's sample `index` left the loudspeaker (the server, with a real device).
        func playedTime(_ index: Int) -> Int64? {
            monitor.map { $0.time(ofSample: index) } ?? bobDevice.time(ofFrame: index, direction: .playback)
        }
        var latencies: [Double] = []
        for onset in onsets {
            // Where the burst lies in Bob's recording, about: Alice's capture and Bob's
            // playback clocks started within a few ms of each other.
            guard let spoken = aliceDevice.time(ofFrame: onset, direction: .capture),
                  let playbackStart = playedTime(0) else { continue }
            let expected = Int(Double(spoken - playbackStart) / 1e9 * Double(Self.rate))
            guard let index = Self.burstOnset(in: heard, from: expected, span: Self.maximumLatencyMs * Self.rate / 1_000),
                  let played = playedTime(index) else { continue }
            latencies.append(Double(played - spoken) / 1e6)
        }
        let inbound = statistics?.inbound
        let jitterBuffer = inbound.map { inbound in
            let before = beforeFirstBurst ?? InboundRTPStatistics()
            let emitted = inbound.jitterBufferEmittedCount - before.jitterBufferEmittedCount
            return emitted > 0 ? (inbound.jitterBufferDelay - before.jitterBufferDelay) / Double(emitted) * 1_000 : 0
        } ?? .nan
        let roundTrip = statistics?.remoteInbound.roundTripTime ?? 0
        func mean(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
        // Bob's ring holds one period ahead of the device buffer.
        let playbackBuffering = mean(playbackDelays) + Double(periodMs)
        let floor = MouthToEarFloor(periodMs: Double(periodMs), frameMs: Double(frameMs),
                                    codecLookaheadMs: Double(alice.lookaheadSamples) * 1_000 / Double(Self.rate),
                                    networkMs: roundTrip * 1_000 / 2, jitterMarginMs: (inbound?.jitter ?? 0) * 1_000)
        var result = Result(mouthToEarMs: latencies, firstCaptureMs: firstCapture, firstPlaybackMs: firstPlayback,
                            captureBufferingMs: Double(periodMs) / 2, jitterBufferMs: jitterBuffer, networkMs: roundTrip * 1_000 / 2,
                            playbackBufferingMs: playbackBuffering, floor: floor, cpuMsPerSecond: cpuMsPerSecond, bursts: onsets.count)
        if device != nil {
            // A real device's periods are its server's: their phase against Alice's is not known.
            result.phases = [Phase(offsetMs: .nan, meanMs: result.meanMs)]
            result.soundServerMs = mean(playbackDelays)
        } else if let captureStart = aliceDevice.time(ofFrame: 0, direction: .capture),
                  let playbackStart = bobDevice.time(ofFrame: 0, direction: .playback) {
            let periodNanoseconds = Int64(periodMs) * 1_000_000
            let offset = ((captureStart - playbackStart) % periodNanoseconds + periodNanoseconds) % periodNanoseconds
            result.phases = [Phase(offsetMs: Double(offset) / 1e6, meanMs: result.meanMs)]
        }
        return result
    }

    /// CPU time (user + system) of the whole process, s.
    public static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// Where `burst` starts in `samples`, searched from `start` over `span` samples; nil when
    /// it is not there. The jitter buffer may change time inside a burst (conceal, expand or
    /// accelerate), which splits it in two: then the whole burst correlates badly (0.41 and
    /// 0.55 in two of 24 runs of `voicecall latency --ptime 10`, where it is 0.97–0.98
    /// otherwise, and under 0.5 the run failed), so its halves are matched alone — the first
    /// half's position, else the second's less half a burst (off by at most the change).
    public static func burstOnset(in samples: [Int16], from start: Int, span: Int) -> Int? {
        if let index = bestMatch(of: burst, in: samples, from: start, span: span) { return index }
        let half = burst.count / 2
        if let index = bestMatch(of: Array(burst[..<half]), in: samples, from: start, span: span) { return index }
        if let index = bestMatch(of: Array(burst[half...]), in: samples, from: start + half, span: span) { return index - half }
        return nil
    }

    /// Where in `samples`, from `start` over `span` samples, `burst` correlates best
    /// (normalised, above 0.5); nil when it is not there.
    public static func bestMatch(of burst: [Int16], in samples: [Int16], from start: Int, span: Int) -> Int? {
        let from = max(0, start), to = min(samples.count - burst.count, start + span)
        guard from < to else { return nil }
        let burstEnergy = burst.reduce(0.0) { $0 + Double($1) * Double($1) }
        var best: (index: Int, correlation: Double) = (from, 0)
        for index in from..<to {
            var product = 0.0, energy = 0.0
            for offset in 0..<burst.count {
                let sample = Double(samples[index + offset])
                product += sample * Double(burst[offset])
                energy += sample * sample
            }
            let correlation = energy > 0 ? product / (energy * burstEnergy).squareRoot() : 0
            if correlation > best.correlation { best = (index, correlation) }
        }
        return best.correlation > 0.5 ? best.index : nil
    }

    /// One side: socket, call, engine.
    private struct Party {
        let socket: UDPSocket
        let call: CallMedia
        let engine: VoiceEngine
        /// The look-ahead of an encoder as the call's uplink makes it (libopus's own figure).
        let lookaheadSamples: Int

        init(device: AudioDeviceOpener, sendingKey: SRTPKeyingMaterial, receivingKey: SRTPKeyingMaterial, periodMs: Int,
             frameMs: Int, processing: ProcessingMode, playoutTick: PlayoutTick) throws {
            socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
            var media = MediaConfiguration()
            media.frameDurationMs = frameMs
            call = try CallMedia(configuration: media, sendingKey: sendingKey, receivingKey: receivingKey)
            lookaheadSamples = try OpusEncoder(sampleRate: media.sampleRate, channels: 1, application: .voip).lookahead * MouthToEarMeasurement.rate / media.sampleRate
            var configuration = VoiceEngineConfiguration()
            configuration.mixer.frameDurationMs = frameMs
            configuration.mixer.playoutTick = playoutTick
            configuration.device = device
            configuration.periodMs = periodMs
            // The engine's own default: its audio threads ask for SCHED_FIFO, as a softphone's do
            // (refused without the right, they run as they are), so load delays them less.
            if processing == .off { configuration.mixer.processing = .off }
            if processing == .voiceChatLowLatencyEchoSuppression {
                configuration.mixer.echoCanceller.residualFilterHalfLengthMs = ResidualEchoSuppressor.lowLatencyFilterHalfLengthMs
            }
            if processing == .voiceChatShortEchoHop { configuration.mixer.echoCanceller.residualHopMs = 5 }
            engine = try VoiceEngine(configuration: configuration)
        }
    }
}
