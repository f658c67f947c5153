// SPDX-License-Identifier: Apache-2.0
import MediaBasics
import AudioProcessing

/// Every call of one audio device: renders each unheld call's next frame and mixes them (each
/// at its gain) for the one playback device, runs voice processing on the microphone with
/// that mix as the echo canceller's far-end reference, and gives the processed microphone to
/// every unheld call — plus, when `bridgesCalls`, the other unheld calls' audio (a local
/// conference: each call hears the microphone and everyone but itself).
///
/// Sans-I/O like `CallMedia`: the caller hands in device periods of any length at the
/// device's rate (`capture`) and asks for periods to play (`render`); FIFOs and a resampler
/// make whole frames at the calls' rate for the microphone. Playback is rendered a frame at a
/// time, or with `PlayoutTick.devicePeriod` as the device asks for it (in 2.5 ms steps, never
/// across a frame's end), so each call's jitter buffer decodes on the period's lattice rather
/// than the frame's: a 20 ms call on 10 ms periods plays a packet up to a period sooner. What
/// was rendered is the echo reference for the next microphone frame; the echo canceller finds
/// the remaining delay itself, seeded by `setDeviceDelay`.
///
/// When the microphone and the loudspeaker run on different clocks, `DeviceDriftCompensator`
/// resamples the microphone onto the loudspeaker's clock (`compensatesDeviceDrift`).
///
/// `render` and `capture` run on the audio thread and allocate nothing; `add` and `remove`
/// are control operations for the thread that owns the mixer (`VoiceEngine` applies them on
/// its audio thread, from a queue).
public final class CallMixer {
    /// The configuration it was built with.
    public let configuration: MixerConfiguration
    /// The voice processing on the microphone.
    public let processor: VoiceProcessor
    /// The calls mixed, in the order added.
    public private(set) var calls: [CallMedia] = []

    private let frameCount: Int
    /// The step playback is rendered in (2.5 ms at the calls' rate): every frame duration is a
    /// multiple of it.
    private let renderStep: Int
    /// Device samples in the longest period the adapters are sized for.
    private let devicePeriodSamples: Int
    private let captureAdapter: RateAdapter
    private let playbackAdapter: RateAdapter
    private let reference: SampleFIFO
    /// Each call's frame being rendered, the mix before saturation (Σ playing calls × gain)
    /// and whether each call played in it, filled a piece at a time from `framePosition`…
    private var callFrames: UnsafeMutableBufferPointer<Int16>
    private var callPlaying: UnsafeMutableBufferPointer<Bool>
    private var accumulator: UnsafeMutableBufferPointer<Int32>
    /// …and the same of the last whole frame rendered, kept for the bridge (swapped with the
    /// above when a frame is complete).
    private var completedCallFrames: UnsafeMutableBufferPointer<Int16>
    private var completedCallPlaying: UnsafeMutableBufferPointer<Bool>
    private var completedAccumulator: UnsafeMutableBufferPointer<Int32>
    /// Samples of the current frame rendered so far.
    private var framePosition = 0
    private let mix: UnsafeMutableBufferPointer<Int16>
    private let microphone: UnsafeMutableBufferPointer<Int16>
    private let farEnd: UnsafeMutableBufferPointer<Int16>
    private let processed: UnsafeMutableBufferPointer<Int16>
    private let bridge: UnsafeMutableBufferPointer<Int16>
    /// A frame of zeros.
    private let silence: UnsafeMutableBufferPointer<Int16>
    private var sourceLevel: AudioLevelMeter
    private var microphoneLevel: AudioLevelMeter
    private var echo: EchoMeter
    private var source = MediaSourceStatistics()
    private var drift: DeviceDriftCompensator
    /// Frames of microphone audio processed and sent so far.
    public private(set) var capturedFrames = 0
    /// Samples of the mix rendered so far.
    private var renderedSamples = 0

    /// A mixer for `configuration`.
    /// - Throws: `CallMixerError` naming what was refused.
    public init(configuration: MixerConfiguration = MixerConfiguration()) throws(CallMixerError) {
        do {
            try configuration.validate()
        } catch {
            throw .configuration(error)
        }
        self.configuration = configuration
        frameCount = configuration.samplesPerFrame
        renderStep = max(1, configuration.sampleRate / 400)
        let devicePeriod = configuration.deviceSampleRate * configuration.maximumDevicePeriodMs / 1_000
        devicePeriodSamples = max(1, devicePeriod)
        let pipelinePeriod = configuration.sampleRate * configuration.maximumDevicePeriodMs / 1_000
        do {
            var echoConfiguration = configuration.echoCanceller
            echoConfiguration.sampleRate = configuration.sampleRate
            echoConfiguration.frameDurationMs = configuration.processingFrameDurationMs
            if echoConfiguration.residualCrossfadeMs == nil {
                echoConfiguration.residualCrossfadeMs = EchoCanceller.Configuration.residualCrossfadeMs(
                    callFrameDurationMs: configuration.frameDurationMs)
            }
            processor = try VoiceProcessor(sampleRate: configuration.sampleRate, frameDurationMs: configuration.processingFrameDurationMs,
                                           configuration: configuration.processing, echoCancellerConfiguration: echoConfiguration)
            captureAdapter = try RateAdapter(inputRate: configuration.deviceSampleRate, outputRate: configuration.sampleRate,
                                             capacity: 2 * (pipelinePeriod + frameCount) + 64,
                                             adjustable: configuration.compensatesDeviceDrift)
            if configuration.compensatesDeviceDrift {
                // speexdsp grows its filter for a ratio above 1 on the first such request: make
                // it now, at the largest correction, so corrections on the audio thread never
                // allocate.
                try captureAdapter.adjustRatio(ppm: -DeviceDriftCompensator.maximumCorrectionPpm)
                try captureAdapter.adjustRatio(ppm: DeviceDriftCompensator.maximumCorrectionPpm)
                try captureAdapter.adjustRatio(ppm: 0)
            }
            playbackAdapter = try RateAdapter(inputRate: configuration.sampleRate, outputRate: configuration.deviceSampleRate,
                                              capacity: 2 * (devicePeriod + configuration.deviceSampleRate * configuration.frameDurationMs / 1_000) + 64)
        } catch {
            throw .processing(error)
        }
        // Room for the device's own buffering plus a drift transient.
        reference = SampleFIFO(capacity: 8 * frameCount)
        drift = DeviceDriftCompensator(sampleRate: configuration.sampleRate)
        func buffer<Element>(_ count: Int, _ value: Element) -> UnsafeMutableBufferPointer<Element> {
            let pointer = UnsafeMutableBufferPointer<Element>.allocate(capacity: count)
            pointer.initialize(repeating: value)
            return pointer
        }
        callFrames = buffer(configuration.maximumCalls * frameCount, 0)
        callPlaying = buffer(configuration.maximumCalls, false)
        accumulator = buffer(frameCount, 0)
        completedCallFrames = buffer(configuration.maximumCalls * frameCount, 0)
        completedCallPlaying = buffer(configuration.maximumCalls, false)
        completedAccumulator = buffer(frameCount, 0)
        mix = buffer(frameCount, 0)
        microphone = buffer(frameCount, 0)
        farEnd = buffer(frameCount, 0)
        processed = buffer(frameCount, 0)
        bridge = buffer(frameCount, 0)
        silence = buffer(frameCount, 0)
        sourceLevel = AudioLevelMeter(sampleRate: configuration.sampleRate)
        microphoneLevel = AudioLevelMeter(sampleRate: configuration.sampleRate)
        echo = EchoMeter(frameDurationMs: configuration.frameDurationMs, maximumDelayMs: processor.echoCanceller.configuration.maximumDelayMs + 100)
        calls.reserveCapacity(configuration.maximumCalls)
    }

    deinit {
        for buffer in [callFrames, completedCallFrames, mix, microphone, farEnd, processed, bridge, silence] { buffer.deallocate() }
        callPlaying.deallocate()
        completedCallPlaying.deallocate()
        accumulator.deallocate()
        completedAccumulator.deallocate()
        echo.deallocate()
    }

    // MARK: Calls

    /// Starts mixing `call`.
    public func add(_ call: CallMedia) throws(CallMixerError) {
        guard !calls.contains(where: { $0 === call }) else { throw .callAlreadyAdded }
        guard calls.count < configuration.maximumCalls else { throw .tooManyCalls(maximum: configuration.maximumCalls) }
        guard call.configuration.sampleRate == configuration.sampleRate,
              call.configuration.frameDurationMs == configuration.frameDurationMs else {
            throw .callFormatMismatch(callSampleRate: call.configuration.sampleRate, callFrameDurationMs: call.configuration.frameDurationMs,
                                      mixerSampleRate: configuration.sampleRate, mixerFrameDurationMs: configuration.frameDurationMs)
        }
        calls.append(call)
        callPlaying[calls.count - 1] = false
        completedCallPlaying[calls.count - 1] = false
    }

    /// Stops mixing `call` (a no-op when it is not mixed).
    public func remove(_ call: CallMedia) {
        guard let index = calls.firstIndex(where: { $0 === call }) else { return }
        calls.remove(at: index)
        // Keep each call's frames next to it (no array of the buffers: this runs on the audio thread).
        func close(_ frames: UnsafeMutableBufferPointer<Int16>, _ playing: UnsafeMutableBufferPointer<Bool>) {
            for slot in index..<calls.count {
                let from = (slot + 1) * frameCount
                for sample in 0..<frameCount { frames[slot * frameCount + sample] = frames[from + sample] }
                playing[slot] = playing[slot + 1]
            }
            playing[calls.count] = false
        }
        close(callFrames, callPlaying)
        close(completedCallFrames, completedCallPlaying)
    }

    // MARK: Device

    /// Seeds the echo canceller's alignment with the device's delay from playback to capture
    /// (`snd_pcm_delay` of both directions, or a virtual device's), in ms.
    public func setDeviceDelay(ms: Int) {
        processor.echoCanceller.setKnownDelay(ms: min(max(ms, 0), processor.echoCanceller.configuration.maximumDelayMs))
    }

    /// Switches voice processing between frames (the audio session's mode).
    public func setProcessing(_ processing: ProcessingConfiguration) throws(CallMixerError) {
        do {
            try processor.setConfiguration(processing)
        } catch {
            throw .processing(error)
        }
    }

    /// Tells the mixer the device restarted capture and playback together (after an xrun, a
    /// suspend or a reopen): the echo reference queue no longer matches what the microphone
    /// hears, so it is emptied, the canceller is re-aligned to `deviceDelayMs` when the device
    /// reports one (it corrects the rest itself), and the drift loop learns the new level.
    public func deviceRestarted(deviceDelayMs: Int?) {
        reference.discard(reference.count)
        drift.restart()
        if let deviceDelayMs { setDeviceDelay(ms: deviceDelayMs) }
        source.deviceRestarts += 1
    }

    /// Keeps the echo reference causal: a captured frame is matched with the oldest rendered
    /// frame not yet matched, so when rendering ran ahead of capture at start (a device that
    /// delivers its first capture late), the reference would lead the echo and no canceller
    /// could align it (it can only delay the reference). Drops the oldest reference samples
    /// beyond `samples` (at the calls' rate) — the device's own delay from rendering to
    /// capture, as the engine measures it — and returns how many it dropped.
    @discardableResult
    public func limitEchoReferenceLag(toSamples samples: Int) -> Int {
        // (Also counted in `echoReferenceDiscardedSamples`.)
        let excess = reference.count - max(samples, 0)
        guard excess > 0 else { return 0 }
        reference.discard(excess)
        return excess
    }

    /// Moves the echo reference when the canceller finds the echo at the reference's own
    /// instant (`EchoCanceller.echoAtReferenceEdge`): on a real device that means the echo
    /// arrives before its reference — the device's delay figure overstated the path, or the
    /// sound server dropped captured audio it never reported (PulseAudio under load) — and
    /// no canceller can delay a reference backwards. Drops the oldest reference samples down
    /// to one frame above `lowestLagSamples` (the queue's lowest level of late, as the engine
    /// watches it), the most the queue can give without running dry, and re-aligns from 0 so
    /// the estimator finds the echo behind it. Returns whether it moved the reference.
    ///
    /// Only for a device whose path holds buffering (a real one): a virtual device may
    /// legitimately put its echo at 0.
    @discardableResult
    public func correctLeadingEchoReference(lowestLagSamples: Int) -> Bool {
        guard processor.configuration.echoCancellation, processor.echoCanceller.echoAtReferenceEdge,
              lowestLagSamples > frameCount else { return false }
        limitEchoReferenceLag(toSamples: reference.count - (lowestLagSamples - frameCount))
        setDeviceDelay(ms: 0)
        source.echoReferenceLeadCorrections += 1
        return true
    }

    /// Tells every call the device's own delay (playback plus capture buffering, in ms), for
    /// its mouth-to-ear estimate (`CallQualityEstimate`, RTCP XR's end-system delay).
    public func reportDeviceLatency(ms: Int) {
        // Indices, not `for call in calls`: that iterator allocated on the audio thread in
        // debug builds (the engine's allocation test caught it).
        for index in calls.indices { calls[index].deviceDelayMs = ms }
    }

    /// Tells the mixer the loudspeaker played `deviceSamples` of silence it never rendered (the
    /// playback ring ran dry: an underrun the device did not report). Everything rendered from
    /// now on reaches the room that much later, so the same silence goes into the echo
    /// reference: the canceller's alignment holds instead of jumping by the gap.
    public func playbackInsertedSilence(deviceSamples: Int) {
        var remaining = min(max(deviceSamples, 0), reference.capacity) * configuration.sampleRate / configuration.deviceSampleRate
        while remaining > 0 {
            let piece = min(remaining, frameCount)
            if reference.count + piece > reference.capacity { reference.discard(piece) }
            reference.push(UnsafeBufferPointer(rebasing: UnsafeBufferPointer(silence)[0..<piece]))
            remaining -= piece
        }
    }

    /// Tells the mixer `deviceSamples` of captured audio were lost before reaching it (the
    /// capture ring overflowed): the microphone skipped ahead, so the echo reference skips the
    /// same span and the echo does not arrive ahead of it.
    public func captureDropped(deviceSamples: Int) {
        reference.discard(max(deviceSamples, 0) * configuration.sampleRate / configuration.deviceSampleRate)
    }

    /// Rendered samples (at the calls' rate) waiting to be matched with captured ones.
    public var echoReferenceLagSamples: Int { reference.count }

    /// Reports a device fault: counted in `mediaSourceStatistics` and raised as an event on
    /// every call.
    public func reportXrun(_ direction: AudioDirection) {
        if direction == .capture { source.captureXruns += 1 } else { source.playbackXruns += 1 }
        for index in calls.indices { calls[index].reportXrun(direction) }
    }

    /// Fills `playback` (any length, at the device's rate) with the mix of every unheld call,
    /// rendering a frame of each call, or as much as the period needs (in 2.5 ms steps, with
    /// `PlayoutTick.devicePeriod`), at `nowMs`.
    public func render(into playback: UnsafeMutableBufferPointer<Int16>, nowMs: Double) {
        // A period longer than the adapters hold is served in pieces that fit.
        var start = playback.startIndex
        while start < playback.endIndex {
            let piece = UnsafeMutableBufferPointer(rebasing: playback[start..<min(playback.endIndex, start + devicePeriodSamples)])
            while playbackAdapter.available < piece.count {
                let count = samplesToRender(lackingDeviceSamples: piece.count - playbackAdapter.available)
                let rendered = framePosition..<(framePosition + count)
                renderPiece(rendered, nowMs: nowMs)
                playbackAdapter.push(UnsafeBufferPointer(rebasing: mix[rendered]))
                finishPiece(count)
            }
            _ = playbackAdapter.pop(into: piece)
            start += piece.count
        }
    }

    /// Takes `captured` microphone samples (any length, at the device's rate); each whole
    /// frame is processed and sent on every unheld call.
    public func capture(_ captured: UnsafeBufferPointer<Int16>) {
        var start = captured.startIndex
        while start < captured.endIndex {
            let end = min(captured.endIndex, start + devicePeriodSamples)
            captureAdapter.push(UnsafeBufferPointer(rebasing: captured[start..<end]))
            if configuration.compensatesDeviceDrift, let correction = drift.observe(lagSamples: sideLagSamples, capturedSamples: end - start) {
                try? captureAdapter.adjustRatio(ppm: correction)
            }
            processCapturedFrames()
            start = end
        }
    }

    /// How much of the current frame to render next: the rest of it, or with
    /// `PlayoutTick.devicePeriod` what the device lacks (at the calls' rate, rounded up to the
    /// 2.5 ms step), never past the frame's end.
    private func samplesToRender(lackingDeviceSamples: Int) -> Int {
        let rest = frameCount - framePosition
        guard configuration.playoutTick == .devicePeriod else { return rest }
        let lacking = lackingDeviceSamples * configuration.sampleRate
        let needed = (lacking + configuration.deviceSampleRate - 1) / configuration.deviceSampleRate
        let steps = max((needed + renderStep - 1) / renderStep, 1)
        return min(steps * renderStep, rest)
    }

    /// Samples (at the calls' rate) the loudspeaker has taken minus samples the microphone has
    /// given: constant on one clock, sliding when the two drift.
    private var sideLagSamples: Double {
        let played = Double(renderedSamples)
            - Double(playbackAdapter.available) * Double(configuration.sampleRate) / Double(configuration.deviceSampleRate)
        let captured = Double(capturedFrames * frameCount + captureAdapter.available)
        return played - captured
    }

    /// Processes every whole frame the capture adapter holds.
    private func processCapturedFrames() {
        while captureAdapter.pop(into: microphone) {
            if !reference.pop(into: farEnd) {
                farEnd.update(repeating: 0)
                source.echoReferenceMissingFrames += 1
            }
            capturedFrames += 1
            let step = processor.frameCount
            for start in stride(from: 0, to: frameCount, by: step) {
                processor.process(microphone: UnsafeBufferPointer(rebasing: microphone[start..<(start + step)]),
                                  farEnd: UnsafeBufferPointer(rebasing: farEnd[start..<(start + step)]),
                                  output: UnsafeMutableBufferPointer(rebasing: processed[start..<(start + step)]))
            }
            sourceLevel.measure(UnsafeBufferPointer(processed))
            microphoneLevel.measure(UnsafeBufferPointer(microphone))
            let canceller = processor.echoCanceller
            let nearEndTalks = canceller.residualEchoSuppressor?.isNearEndActive ?? false
            echo.measure(played: UnsafeBufferPointer(farEnd), microphone: UnsafeBufferPointer(microphone),
                         processed: UnsafeBufferPointer(processed), echoDelayMs: canceller.alignmentDelayMs,
                         echoOnly: canceller.echoPathPresent && !nearEndTalks)
            sendFrame()
        }
    }

    /// The microphone side's statistics.
    public var mediaSourceStatistics: MediaSourceStatistics {
        var result = source
        result.audioLevel = sourceLevel.audioLevel
        result.totalAudioEnergy = sourceLevel.totalAudioEnergy
        result.totalSamplesDuration = sourceLevel.totalSamplesDuration
        result.totalMicrophoneEnergy = microphoneLevel.totalAudioEnergy
        result.echoReturnLoss = processor.configuration.echoCancellation ? echo.echoReturnLoss : nil
        result.echoReturnLossEnhancement = processor.configuration.echoCancellation ? echo.echoReturnLossEnhancement : nil
        result.echoDelayMs = processor.echoCanceller.alignmentDelayMs
        let estimator = processor.echoCanceller.delayEstimator
        result.echoDelayEstimateMs = estimator.delaySamples.map { Double($0) * 1_000 / Double(configuration.sampleRate) }
        result.echoDelayConfidence = estimator.confidence
        result.voiceActivity = processor.isVoiceActive
        result.deviceDriftCorrectionPpm = drift.correctionPpm
        result.echoReferenceLagMs = Double(reference.count) * 1_000 / Double(configuration.sampleRate)
        result.echoReferenceDiscardedSamples = reference.overflowedSamples
        return result
    }

    // MARK: Frames

    /// Call `index`'s frame in `frames` (`callFrames` or `completedCallFrames`).
    private func callFrame(_ index: Int, in frames: UnsafeMutableBufferPointer<Int16>) -> UnsafeMutableBufferPointer<Int16> {
        UnsafeMutableBufferPointer(rebasing: frames[(index * frameCount)..<((index + 1) * frameCount)])
    }

    /// Renders `range` of the current frame: every call's audio there and their mix; the mix
    /// becomes the echo reference.
    private func renderPiece(_ range: Range<Int>, nowMs: Double) {
        let sum = UnsafeMutableBufferPointer(rebasing: accumulator[range])
        sum.update(repeating: 0)
        for index in calls.indices {
            let piece = UnsafeMutableBufferPointer(rebasing: callFrame(index, in: callFrames)[range])
            let call = calls[index]
            let playing = call.render(into: piece, nowMs: nowMs)
            // A call plays in the frame if it played in any piece (a held piece is silence).
            callPlaying[index] = (range.lowerBound > 0 && callPlaying[index]) || playing
            if playing { SampleMath.accumulate(UnsafeBufferPointer(piece), gain: call.playbackGain, into: sum) }
        }
        let mixed = UnsafeMutableBufferPointer(rebasing: mix[range])
        SampleMath.saturate(UnsafeBufferPointer(sum), into: mixed)
        if reference.count + range.count > reference.capacity { reference.discard(range.count) }
        reference.push(UnsafeBufferPointer(mixed))
    }

    /// Moves past `count` rendered samples; a whole frame becomes the bridge's.
    private func finishPiece(_ count: Int) {
        renderedSamples += count
        framePosition += count
        guard framePosition == frameCount else { return }
        framePosition = 0
        swap(&callFrames, &completedCallFrames)
        swap(&callPlaying, &completedCallPlaying)
        swap(&accumulator, &completedAccumulator)
    }

    /// Sends the processed microphone on every call, with the other playing calls bridged in:
    /// each call's bridge is the last whole mix frame less its own contribution, so bridging
    /// costs one pass per call however many calls there are.
    private func sendFrame() {
        let processedFrame = UnsafeBufferPointer(processed)
        var playingCount = 0
        for index in calls.indices where completedCallPlaying[index] { playingCount += 1 }
        for index in calls.indices {
            let call = calls[index]
            let othersPlaying = playingCount - (completedCallPlaying[index] ? 1 : 0)
            guard configuration.bridgesCalls, othersPlaying > 0 else {
                call.send(microphone: processedFrame)
                continue
            }
            if completedCallPlaying[index] {
                SampleMath.subtract(UnsafeBufferPointer(callFrame(index, in: completedCallFrames)), gain: call.playbackGain,
                                    from: UnsafeBufferPointer(completedAccumulator), into: bridge)
            } else {
                SampleMath.saturate(UnsafeBufferPointer(completedAccumulator), into: bridge)
            }
            call.send(microphone: processedFrame, bridged: UnsafeBufferPointer(bridge))
        }
    }
}
