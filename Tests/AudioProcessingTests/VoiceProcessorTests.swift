// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import Testing
import TestSupport

/// Session modes switch the processing chain; NS, AGC and VAD do what they say.
@Suite struct VoiceProcessorTests {
    static let rate = 16_000

    /// Runs `processor` over `microphone` (far end `far`, or silence); returns output and the
    /// number of frames VAD called speech.
    static func run(_ processor: VoiceProcessor, microphone: [Int16], far: [Int16]? = nil) -> (output: [Int16], voiceFrames: Int) {
        let frameCount = processor.frameCount
        let far = far ?? [Int16](repeating: 0, count: microphone.count)
        var output = [Int16](repeating: 0, count: microphone.count)
        var voiceFrames = 0
        microphone.withUnsafeBufferPointer { mic in
            far.withUnsafeBufferPointer { farBuffer in
                output.withUnsafeMutableBufferPointer { out in
                    for frame in 0..<(microphone.count / frameCount) {
                        let range = (frame * frameCount)..<((frame + 1) * frameCount)
                        if processor.process(microphone: UnsafeBufferPointer(rebasing: mic[range]),
                                             farEnd: UnsafeBufferPointer(rebasing: farBuffer[range]),
                                             output: UnsafeMutableBufferPointer(rebasing: out[range])) {
                            voiceFrames += 1
                        }
                    }
                }
            }
        }
        return (output, voiceFrames)
    }

    static func noise(count: Int, amplitude: Int16, seed: UInt64) -> [Int16] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in Int16.random(in: -amplitude...amplitude, using: &generator) }
    }

    @Test func presets() {
        #expect(ProcessingConfiguration.voiceChat
                == ProcessingConfiguration(echoCancellation: true, noiseSuppression: true, automaticGainControl: true,
                                           voiceActivityDetection: true))
        #expect(!ProcessingConfiguration.off.isProcessing)
    }

    /// Measurement passes samples bit-exact; switching the same processor to voiceChat removes
    /// the echo; back to measurement is bit-exact again.
    ///
    /// speexdsp's AGC would raise the residual echo with everything else in far-end-only talk
    /// (with speexdsp's residual suppressor: 29.6 dB ERLE with AGC off, 15.6 dB on), so the
    /// chain holds it in frames our suppressor reports as echo dominated: measured 37.6 dB
    /// without AGC and 35.1 dB with it; both must stay above 30 dB.
    @Test func modesSwitchProcessing() throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 200, bulkDelayMs: 60, gainDb: -6, seed: 9)
        let far = EchoScenario.farEnd
        let microphone = path.echo(of: far)
        let whole = microphone.count / 160 * 160
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: ProcessingConfiguration.off)
        #expect(Self.run(processor, microphone: microphone, far: far).output.prefix(whole) == microphone.prefix(whole))
        try processor.setConfiguration(.voiceChat)
        let erle = EchoScenario.erle(microphone, Self.run(processor, microphone: microphone, far: far).output)
        var withoutAGC = ProcessingConfiguration.voiceChat
        withoutAGC.automaticGainControl = false
        let chain = try VoiceProcessor(sampleRate: Self.rate, configuration: withoutAGC)
        let chainERLE = EchoScenario.erle(microphone, Self.run(chain, microphone: microphone, far: far).output)
        #expect(chainERLE > 30, "voiceChat without AGC: ERLE \(chainERLE) dB")
        #expect(erle > 30, "voiceChat: ERLE \(erle) dB")
        try processor.setConfiguration(.off)
        #expect(Self.run(processor, microphone: microphone, far: far).output.prefix(whole) == microphone.prefix(whole))
    }

    /// With speexdsp's residual suppressor chosen instead of ours, the chain links its
    /// preprocessor to the echo state and still removes the echo (measured 29.6 dB with AGC off).
    @Test func speexResidualSuppressionStillAvailable() throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 200, bulkDelayMs: 60, gainDb: -6, seed: 9)
        let far = EchoScenario.farEnd
        let microphone = path.echo(of: far)
        var configuration = ProcessingConfiguration.voiceChat
        configuration.automaticGainControl = false
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: configuration,
                                           echoCancellerConfiguration: .init(residualSuppression: .speexdsp))
        #expect(processor.echoCanceller.residualEchoSuppressor == nil)
        let erle = EchoScenario.erle(microphone, Self.run(processor, microphone: microphone, far: far).output)
        #expect(erle > 25, "voiceChat with speex RES, without AGC: ERLE \(erle) dB")
    }

    /// The whole voiceChat chain (echo cancellation, our residual suppressor, NS, AGC held in
    /// echo frames) keeps a near-end talker in double talk: the output correlates with the clean
    /// near end better than the raw microphone does, and well enough to be understood. AGC
    /// changes the level, not the shape, so correlation (not SNR) is the measure.
    @Test func voiceChatKeepsTheNearEndTalkerInDoubleTalk() throws {
        let path = EchoPath(sampleRate: Self.rate, rt60Ms: 250, bulkDelayMs: 120, gainDb: -6, seed: 3)
        let start = 4 * Self.rate
        let near = [Int16](repeating: 0, count: start) + EchoScenario.nearEnd
        let scenario = EchoScenario(path: path, near: near)
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: ProcessingConfiguration.voiceChat)
        let output = Self.run(processor, microphone: scenario.microphone, far: scenario.far).output
        let clean = Array(scenario.near[start...])
        let chain = SignalComparison.bestCorrelation(reference: clean, signal: Array(output[start...]), maxLag: 400).correlation
        let raw = SignalComparison.bestCorrelation(reference: clean, signal: Array(scenario.microphone[start...]), maxLag: 400).correlation
        #expect(chain >= 0.85, "voiceChat double talk: correlation \(chain), raw microphone \(raw)")
        #expect(chain > raw, "voiceChat double talk: correlation \(chain), raw microphone \(raw)")
    }

    /// Turns over the demo's echo path (30 ms at −15 dB, 55 ms at −25 dB) from a cold start:
    /// the near end, the far end (whose echo the canceller is still learning), the near end
    /// again (48 kHz, as in `benchmarks processing`). The AGC does not take that first echo
    /// for the talker: the near end's second turn starts at the gain its end settles at
    /// (within 3 dB; measured 0.3), not lifted by the far end's turn (6.8 dB over its first
    /// half second before the AGC held while the path is learnt).
    @Test func agcIsNotLiftedByTheFirstFarEndTurn() throws {
        let rate = 48_000
        let near = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: rate)
        let far = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: rate)
        var path = EchoRoom.standard[0].path(sampleRate: rate)
        path.bulkDelaySamples = 1_440
        path.taps = [(0, 0.178), (1_200, 0.056)]
        path.softClipDrive = nil
        let nearPass = near + [Int16](repeating: 0, count: far.count)
        let farPass = [Int16](repeating: 0, count: near.count) + far
        let scenario = EchoScenario(path: path, far: farPass + farPass, near: nearPass + nearPass)
        let processor = try VoiceProcessor(sampleRate: rate, configuration: .voiceChat)
        let output = Self.run(processor, microphone: scenario.microphone, far: scenario.far).output
        let latency = processor.latencySamples
        func gainDb(_ range: Range<Int>) -> Double {
            SignalComparison.rmsDecibels(output[(range.lowerBound + latency)..<(range.upperBound + latency)])
                - SignalComparison.rmsDecibels(scenario.microphone[range])
        }
        let second = nearPass.count
        let start = gainDb(second..<(second + rate / 2))
        let end = gainDb((second + near.count - 3 * rate)..<(second + near.count - rate))
        #expect(abs(start - end) < 3, "second turn: \(start) dB at its start, \(end) dB at its end")
    }

    /// The far end's noise is not its speech: with only faint noise coming from the other side
    /// (−60 dBFS, the residue of its uplink) the AGC is not held as while an echo path is
    /// learnt, and a near end talking from the first word gets the same gain as with a silent
    /// far end (within 1 dB over 0.5–2.5 s, while a learnt path would still hold it).
    @Test func farEndNoiseDoesNotHoldTheAGC() throws {
        let near = EchoScenario.nearEnd
        let noise = SyntheticNoise.samples(count: near.count, levelDb: -60, pink: false, seed: 9)
        var levels: [Double] = []
        for far in [[Int16](repeating: 0, count: near.count), noise] {
            let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .voiceChat)
            let output = Self.run(processor, microphone: near, far: far).output
            levels.append(SignalComparison.rmsDecibels(output[(Self.rate / 2)..<(5 * Self.rate / 2)]))
        }
        #expect(abs(levels[0] - levels[1]) < 1, "silent far end \(levels[0]) dBFS, far-end noise \(levels[1]) dBFS")
    }

    /// A headset call that starts in double talk: a quiet near end (−6 dB) talks over the far
    /// end from the first word, no echo. While the path is undecided the AGC holds only where
    /// the microphone is 10 dB below the far end, as an echo would be — not on most of the near
    /// end's words — so it lifts them about as it does with a silent far end: within 2 dB over
    /// 0.5–3 s (measured 1.2; held on every far-end frame, 2.6).
    @Test func anUndecidedPathDoesNotHoldTheAGCOverTheNearEndsWords() throws {
        let rate = 48_000
        let near = try SpeechFixture.samples(SpeechFixture.alice, sampleRate: rate).map { $0 / 2 }
        let far = try SpeechFixture.samples(SpeechFixture.bob, sampleRate: rate)
        let count = min(near.count, far.count)
        let microphone = Array(near.prefix(count))
        var levels: [Double] = []
        for farEnd in [[Int16](repeating: 0, count: count), Array(far.prefix(count))] {
            let processor = try VoiceProcessor(sampleRate: rate, configuration: .voiceChat)
            let output = Self.run(processor, microphone: microphone, far: farEnd).output
            levels.append(SignalComparison.rmsDecibels(output[(rate / 2)..<(3 * rate)]))
        }
        #expect(abs(levels[0] - levels[1]) < 2, "silent far end \(levels[0]) dBFS, far end talking \(levels[1]) dBFS")
    }

    /// Noise suppression takes steady white noise down by at least 10 dB (the default limit is −15 dB).
    @Test func noiseSuppressionAttenuatesSteadyNoise() throws {
        let noise = Self.noise(count: 3 * Self.rate, amplitude: 2_000, seed: 4)
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .init(noiseSuppression: true))
        let output = Self.run(processor, microphone: noise).output
        let reduction = SignalComparison.rmsDecibels(noise[Self.rate...]) - SignalComparison.rmsDecibels(output[Self.rate...])
        #expect(reduction > 10, "noise reduction \(reduction) dB")
    }

    /// AGC lifts speech 30 dB too quiet by at least 10 dB once settled.
    @Test func automaticGainControlLiftsQuietSpeech() throws {
        let quiet = EchoScenario.farEnd.map { $0 / 32 }
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .init(automaticGainControl: true))
        let output = Self.run(processor, microphone: quiet).output
        let gain = SignalComparison.rmsDecibels(output[(4 * Self.rate)...]) - SignalComparison.rmsDecibels(quiet[(4 * Self.rate)...])
        #expect(gain > 10, "AGC gain \(gain) dB")
    }

    /// VAD (speexdsp's, which it calls "a hack pending a rewrite": a threshold on its speech
    /// probability): after a second to learn the noise, faint noise is not speech; speech
    /// mostly is.
    @Test func voiceActivityDetection() throws {
        let silence = Self.noise(count: 2 * Self.rate, amplitude: 30, seed: 2)
        let speech = EchoScenario.farEnd
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .init(voiceActivityDetection: true))
        _ = Self.run(processor, microphone: silence)
        let silent = Self.run(processor, microphone: silence).voiceFrames
        let spoken = Self.run(processor, microphone: speech).voiceFrames
        let label = Comment(rawValue: "VAD: \(silent) of 200 silent frames, \(spoken) of \(speech.count / 160) speech frames")
        #expect(silent < 20, label)
        #expect(spoken > speech.count / 160 / 3, label)
    }

    /// The delay each chain adds, as `latencySamples` states it: voiceChat only its residual
    /// suppressor's synthesis (one 10 ms frame, a 5 ms crossfade, 5 ms on 5 ms hops, or half
    /// the 4 ms filter: NS runs inside it, the AGC adds none); NS alone one frame; AGC alone
    /// none; speexdsp's chain a frame more.
    @Test func latencyOfEachChain() throws {
        let chains: [(ProcessingConfiguration, EchoCanceller.Configuration?, Int)] = [
            (.voiceChat, nil, 160),
            (.voiceChat, .init(residualCrossfadeMs: 5), 80),
            (.voiceChat, .init(residualHopMs: 5), 80),
            (.voiceChat, .init(residualFilterHalfLengthMs: 4), 64),
            (.init(noiseSuppression: true), nil, 160),
            (.init(automaticGainControl: true, voiceActivityDetection: true), nil, 0),
            (.off, nil, 0),
            (.voiceChat, .init(residualSuppression: .speexdsp), 160),
        ]
        for (configuration, echo, expected) in chains {
            let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: configuration,
                                               echoCancellerConfiguration: echo)
            #expect(processor.latencySamples == expected, "\(configuration), \(String(describing: echo))")
        }
    }

    /// The stated latency is the real one: noise suppression alone, the AGC alone and voiceChat
    /// with no far end, its suppressor on its own windows and on a 5 ms crossfade, pass speech
    /// through at exactly `latencySamples` of delay (the best-correlating lag).
    @Test func statedLatencyIsTheDelay() throws {
        let speech = Array(try SpeechFixture.samples(SpeechFixture.bob).prefix(3 * Self.rate))
        let chains: [(ProcessingConfiguration, EchoCanceller.Configuration?)] = [
            (.init(noiseSuppression: true), nil), (.init(automaticGainControl: true), nil),
            (.voiceChat, nil), (.voiceChat, .init(residualCrossfadeMs: 5)),
        ]
        for (configuration, echo) in chains {
            let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: configuration, echoCancellerConfiguration: echo)
            let output = Self.run(processor, microphone: speech).output
            let match = SignalComparison.bestCorrelation(reference: speech, signal: output, maxLag: 400)
            #expect(match.lag == processor.latencySamples, "\(configuration): lag \(match.lag)")
        }
    }

    /// Out-of-range settings are refused where they are given, with the setting named, and
    /// leave a running processor as it was: an AGC target that is not a number (it would trap
    /// converting gained samples), zero, negative or above full scale; a positive or absurdly
    /// deep noise attenuation.
    @Test func outOfRangeSettingsAreRefused() throws {
        var bad: [ProcessingConfiguration] = []
        for level: Float in [.nan, 0, -5, 40_000, .infinity] { bad.append(.init(automaticGainControl: true, agcTargetLevel: level)) }
        for db in [1, -101, Int.min] { bad.append(.init(noiseSuppression: true, noiseSuppressionDb: db)) }
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .voiceChat)
        for configuration in bad {
            #expect(throws: SpeexDSPError.self) { _ = try VoiceProcessor(sampleRate: Self.rate, configuration: configuration) }
            do {
                try processor.setConfiguration(configuration)
                Issue.record("accepted \(configuration)")
            } catch {
                guard case .invalidConfiguration(let reason) = error else { Issue.record("\(error)"); continue }
                #expect(reason.contains("agcTargetLevel") || reason.contains("noiseSuppressionDb"), "\(reason)")
            }
            #expect(processor.configuration == .voiceChat)
        }
        let far = Self.noise(count: 16_000, amplitude: 3_000, seed: 12)
        _ = Self.run(processor, microphone: far.map { $0 / 4 }, far: far)
    }

    /// voiceChat on the real-time path: no allocation per frame.
    @Test func voiceChatAllocatesNothing() throws {
        let processor = try VoiceProcessor(sampleRate: Self.rate, configuration: .voiceChat)
        let far = Self.noise(count: 160, amplitude: 5_000, seed: 8)
        let mic = far.map { $0 / 3 }
        var out = [Int16](repeating: 0, count: 160)
        let allocations = far.withUnsafeBufferPointer { farBuffer in
            mic.withUnsafeBufferPointer { micBuffer in
                out.withUnsafeMutableBufferPointer { outBuffer in
                    for _ in 0..<20 { processor.process(microphone: micBuffer, farEnd: farBuffer, output: outBuffer) }
                    return AllocationCounter.measure {
                        for _ in 0..<100 { processor.process(microphone: micBuffer, farEnd: farBuffer, output: outBuffer) }
                    }.allocations
                }
            }
        }
        #expect(allocations == 0)
    }
}
