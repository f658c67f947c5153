// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Locking
import Synchronization

/// A change to the mixer's calls, queued by the control side for the audio thread.
struct AudioCommand: BitwiseCopyable {
    enum Kind: UInt8 { case add, remove }
    var kind: Kind
    /// Unretained: the engine's registry holds the call until the audio side has let it go
    /// (nil only in the queue's unused slots).
    var call: Unmanaged<CallMedia>?
}

/// The engine's audio thread, one device period at a time: the body of the device stream's
/// cycle callback. Each cycle applies queued call changes, hands every captured period to the
/// mixer (voice processing, each call's uplink), renders the mix until the playback ring
/// holds one period (the device takes it in the same wake-up), and notices xruns and joint
/// restarts from the stream's counters to tell the mixer (the echo canceller). A cycle that
/// queued a frame wakes the network thread to send it (`uplinkWaker`). It allocates nothing,
/// takes no lock (counters are published with `withLockIfAvailable`) and makes no blocking
/// system call (the waker's is an `eventfd` write, which cannot block); a call is never
/// released here (the registry outlives the mixer's reference).
///
/// Owned by the audio thread while device I/O runs, by the engine's control lock otherwise.
final class AudioCycle: @unchecked Sendable {
    private(set) var mixer: CallMixer
    private let commands: SPSCConsumer<AudioCommand>
    private let removals: SPSCProducer<AudioCommand>
    private let clock: EngineClock
    private var stream: (any AudioDeviceStream)?
    private let buffer: UnsafeMutableBufferPointer<Int16>
    private var periodSamples = 480
    private var channelCount = 1
    private var seenXruns = (capture: 0, playback: 0)
    /// Playback silence the device inserted and capture audio the ring dropped, as last seen.
    private var seenGaps = (captureDropped: 0, playbackInserted: 0)
    private var seenRestarts = 0
    /// The device's delay from rendering to capture, smoothed, in device frames (0: unknown).
    private var deviceDelayFrames = 0.0
    /// The echo reference's lowest level (right after a capture) in the current window, and
    /// the cycles in that window.
    private var lowestReferenceLag = Int.max
    private var lagWindowCycles = 0
    private var referenceJudged = false
    /// Told on the audio thread when a cycle has queued a frame: wakes the network thread,
    /// which sends it at once. Timing the network thread's wake-ups by the frame instead (its
    /// `poll` woke a frame after the last one was queued, to the millisecond) left a packet
    /// waiting 0.85 ms for its send on average, against 0.25 ms (`voicecall latency` 56.7 →
    /// 56.2 ms: docs/performance.md, stop 62).
    private let uplinkWaker: (@Sendable () -> Void)?
    /// When device I/O started, and when the first captured and played periods passed.
    let startNanoseconds = Atomic<Int64>(0)
    let firstCaptureNanoseconds = Atomic<Int64>(0)
    let firstPlaybackNanoseconds = Atomic<Int64>(0)
    /// Cycles run since the engine was created.
    let cycles = Atomic<Int>(0)
    /// The mixer's microphone statistics, published every cycle.
    let sourceStatistics = PublishedValue(MediaSourceStatistics())
    /// Called at the end of every cycle on the audio thread (tests count allocations with it).
    var cycleObserver: (@Sendable () -> Void)?

    init(mixer: CallMixer, commands: consuming SPSCConsumer<AudioCommand>, removals: consuming SPSCProducer<AudioCommand>,
         clock: EngineClock, maximumPeriodSamples: Int, uplinkWaker: (@Sendable () -> Void)?) {
        self.mixer = mixer
        self.uplinkWaker = uplinkWaker
        self.commands = commands
        self.removals = removals
        self.clock = clock
        buffer = .allocate(capacity: maximumPeriodSamples)
        buffer.initialize(repeating: 0)
    }

    /// A cycle over `mixer` with queues of its own that nobody feeds (tests drive it one cycle
    /// at a time), telling `uplinkWaker` of each frame queued.
    convenience init(drivingOnly mixer: CallMixer, clock: EngineClock, uplinkWaker: (@Sendable () -> Void)? = nil) {
        let commands = SPSCQueue(minimumCapacity: 2, filler: AudioCommand(kind: .add, call: nil))
        let removals = SPSCQueue(minimumCapacity: 2, filler: AudioCommand(kind: .remove, call: nil))
        self.init(mixer: mixer, commands: commands.consumer, removals: removals.producer, clock: clock, maximumPeriodSamples: 480,
                  uplinkWaker: uplinkWaker)
    }

    deinit { buffer.deallocate() }

    /// Binds the cycle to a freshly opened stream (control side, before the stream starts).
    func attach(_ stream: any AudioDeviceStream, mixer replacement: CallMixer?) {
        self.stream = stream
        if let replacement {
            for call in mixer.calls { try? replacement.add(call) }
            mixer = replacement
        }
        let parameters = stream.parameters(for: .playback) ?? stream.parameters(for: .capture) ?? StreamParameters()
        channelCount = max(1, parameters.channelCount)
        periodSamples = min(parameters.periodSamples, buffer.count)
        let capture = stream.statistics(.capture), playback = stream.statistics(.playback)
        seenXruns = (capture.xruns, playback.xruns)
        seenGaps = (capture.ringOverflowSamples, playback.ringUnderflowSamples)
        seenRestarts = stream.restartCount
        deviceDelayFrames = 0
        lowestReferenceLag = .max
        lagWindowCycles = 0
        referenceJudged = false
        startNanoseconds.store(MonotonicClock.nanoseconds, ordering: .relaxed)
        firstCaptureNanoseconds.store(0, ordering: .relaxed)
        firstPlaybackNanoseconds.store(0, ordering: .relaxed)
    }

    /// Lets go of the stream (control side, after it stopped).
    func detach() {
        stream = nil
    }

    /// Applies every queued call change; each removed call is queued back for release.
    func applyCommands() {
        while let command = commands.pop() {
            guard let call = command.call?.takeUnretainedValue() else { continue }
            switch command.kind {
            case .add:
                // Validated by the engine before queueing: cannot fail here.
                try? mixer.add(call)
            case .remove:
                mixer.remove(call)
                _ = removals.push(command)
            }
        }
    }

    /// One wake-up of the device.
    func cycle() {
        defer { cycleObserver?() }
        applyCommands()
        guard let stream else { return }
        cycles.add(1, ordering: .relaxed)
        noticeFaults(stream)
        let framesBefore = mixer.capturedFrames
        let capture = UnsafeMutableBufferPointer(rebasing: buffer[0..<periodSamples])
        while true {
            let count = stream.read(into: capture)
            if count == 0 { break }
            if firstCaptureNanoseconds.load(ordering: .relaxed) == 0 {
                firstCaptureNanoseconds.store(MonotonicClock.nanoseconds, ordering: .relaxed)
            }
            mixer.capture(UnsafeBufferPointer(rebasing: capture[0..<downmix(capture, count: count)]))
            if count < capture.count { break }
        }
        if mixer.capturedFrames != framesBefore { uplinkWaker?() }
        // Between capture and render the reference queue is at its lowest.
        lowestReferenceLag = min(lowestReferenceLag, mixer.echoReferenceLagSamples)
        // Keep one period queued: the device takes it right after this callback.
        let monoPeriod = periodSamples / channelCount
        while stream.playbackQueuedSamples < periodSamples, stream.playbackSpaceAvailable >= periodSamples {
            let mono = UnsafeMutableBufferPointer(rebasing: buffer[0..<monoPeriod])
            mixer.render(into: mono, nowMs: clock.milliseconds)
            upmix(count: monoPeriod)
            stream.write(UnsafeBufferPointer(rebasing: buffer[0..<periodSamples]))
            if firstPlaybackNanoseconds.load(ordering: .relaxed) == 0 {
                firstPlaybackNanoseconds.store(MonotonicClock.nanoseconds, ordering: .relaxed)
            }
        }
        keepEchoReferenceCausal(stream)
        sourceStatistics.publishIfAvailable(mixer.mediaSourceStatistics)
    }

    /// Averages interleaved channels into the first `count / channelCount` samples.
    private func downmix(_ samples: UnsafeMutableBufferPointer<Int16>, count: Int) -> Int {
        guard channelCount > 1 else { return count }
        let frames = count / channelCount
        for frame in 0..<frames {
            var sum = 0
            for channel in 0..<channelCount { sum += Int(samples[frame * channelCount + channel]) }
            samples[frame] = Int16(sum / channelCount)
        }
        return frames
    }

    /// Spreads the first `count` mono samples over every channel, in place from the end.
    private func upmix(count: Int) {
        guard channelCount > 1 else { return }
        var frame = count - 1
        while frame >= 0 {
            let sample = buffer[frame]
            for channel in 0..<channelCount { buffer[frame * channelCount + channel] = sample }
            frame -= 1
        }
    }

    /// Tells the mixer of xruns and of capture and playback restarted together.
    private func noticeFaults(_ stream: any AudioDeviceStream) {
        let restarts = stream.restartCount
        if restarts != seenRestarts {
            seenRestarts = restarts
            mixer.deviceRestarted(deviceDelayMs: nil)
            deviceDelayFrames = 0
            lowestReferenceLag = .max
            lagWindowCycles = 0
            referenceJudged = false
        }
        let capture = stream.statistics(.capture), playback = stream.statistics(.playback)
        if capture.xruns != seenXruns.capture {
            seenXruns.capture = capture.xruns
            mixer.reportXrun(.capture)
        }
        if playback.xruns != seenXruns.playback {
            seenXruns.playback = playback.xruns
            mixer.reportXrun(.playback)
        }
        // Gaps the rings made (a late cycle): keep the echo reference in step with what the
        // room and the microphone actually got.
        if playback.ringUnderflowSamples != seenGaps.playbackInserted {
            mixer.playbackInsertedSilence(deviceSamples: (playback.ringUnderflowSamples &- seenGaps.playbackInserted) / channelCount)
            seenGaps.playbackInserted = playback.ringUnderflowSamples
        }
        if capture.ringOverflowSamples != seenGaps.captureDropped {
            mixer.captureDropped(deviceSamples: (capture.ringOverflowSamples &- seenGaps.captureDropped) / channelCount)
            seenGaps.captureDropped = capture.ringOverflowSamples
        }
    }

    /// Keeps the echo reference from leading the echo: the delay from a rendered sample to its
    /// echo being read is the playback ring plus the playback buffer (`snd_pcm_delay`) plus
    /// the capture buffer. When the mixer holds more rendered audio than half that (rendering
    /// ran ahead while a device such as PulseAudio's started capture late, or after a
    /// restart), the excess is dropped, and the canceller's own delay estimate finds the rest.
    ///
    /// Half, because ALSA's figure is not the acoustic truth: PulseAudio's plugin reported
    /// 49 ms on a loopback whose round trip is 40 ms, and a reference held to 49 ms left the
    /// echo 9 ms ahead of it — beyond any causal filter (19 dB of suppression after 8 s instead
    /// of 30). A reference that trails by more costs nothing: the canceller delays it itself.
    private func keepEchoReferenceCausal(_ stream: any AudioDeviceStream) {
        guard firstCaptureNanoseconds.load(ordering: .relaxed) != 0 else { return }
        let playback = stream.delayFrames(.playback)
        guard playback > 0 else { return }
        let frames = Double(playback + max(0, stream.delayFrames(.capture)) + stream.playbackQueuedSamples / channelCount)
        // ALSA's figure moves by a period from one wake-up to the next: follow it over ~0.5 s.
        deviceDelayFrames = deviceDelayFrames == 0 ? frames : deviceDelayFrames + 0.02 * (frames - deviceDelayFrames)
        // Judge the queue by its lowest level over half a second of cycles: its level swings
        // by a frame between renders, and every cut costs the canceller its alignment.
        lagWindowCycles += 1
        // The first judgement comes quickly (before the canceller has learnt much that a cut
        // would undo), later ones over a longer window.
        guard lagWindowCycles >= (referenceJudged ? Self.lagWindowCycles : Self.firstLagWindowCycles) else { return }
        referenceJudged = true
        let lowest = lowestReferenceLag
        lagWindowCycles = 0
        lowestReferenceLag = .max
        let configuration = mixer.configuration
        mixer.reportDeviceLatency(ms: Int(deviceDelayFrames) * 1_000 / max(1, configuration.deviceSampleRate))
        // A reference that leads the echo whatever the figure says (the estimator finds the
        // echo at the reference's own instant, which no buffered device path gives) is moved
        // first: the figure cannot be trusted then.
        if mixer.correctLeadingEchoReference(lowestLagSamples: lowest) { return }
        let limit = Int(deviceDelayFrames / 2) * configuration.sampleRate / max(1, configuration.deviceSampleRate)
        guard lowest > limit + configuration.samplesPerFrame else { return }
        mixer.limitEchoReferenceLag(toSamples: mixer.echoReferenceLagSamples - (lowest - limit))
        mixer.setDeviceDelay(ms: 0)
    }

    /// Cycles over which the reference queue's lowest level is judged.
    static let lagWindowCycles = 50
    /// Cycles of the first judgement after a (re)start.
    static let firstLagWindowCycles = 10
}
