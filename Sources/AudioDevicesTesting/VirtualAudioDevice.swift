// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import AudioDevices
import Locking
import Synchronization
import SystemErrors

/// A device without hardware: the null device (capture gives silence, playback is discarded)
/// or a WAV file device (capture plays the file, playback is recorded), paced in real time, on
/// a virtual clock, or as fast as possible.
///
/// It is a backend at the level of one period (`AudioDeviceBackend`): an engine opens it as it
/// would any other kind of device, and each stream (`VirtualAudioStream`) serves it from its
/// own thread, one cycle per wake-up, without ALSA:
///
/// ```swift
/// let device = VirtualAudioDevice.wavFile(try WAVAudio(contentsOf: url), pacing: .realtime)
/// configuration.device = AudioDeviceOpener(name: "wav", backend: device)
/// ```
///
/// It also implements the `ALSACalls` layer, so `ALSAStream` itself can be tested on it
/// (`ALSAStream(device: "wav", calls: device)`): the same PCMs, clocks and files either way.
///
/// An `acousticPath` (`VirtualAcousticPath`) stands for the room between the loudspeaker and
/// the microphone: it hears every period played and adds what it brings back to every period
/// captured (the demo's echo path).
///
/// Each direction runs on its own crystal: `captureClockErrorPpm` and `playbackClockErrorPpm`
/// stretch that direction's periods by 1 + ppm·10⁻⁶ (+100 ppm: its periods last 100 ppm
/// longer, it runs slow), so an hour of drift between capture and playback takes seconds on
/// `.virtualClock`. The device keeps the playback prefill as its lead, like a sound card:
/// playback's `delay` is what was written minus what its clock has played.
///
/// Recording playback appends to an array on the I/O thread; it grows (and allocates) unless
/// `recordingCapacitySamples` reserved it up front, in which case what does not fit is dropped
/// and counted (`recordingDroppedSamples`) and the I/O thread never allocates.
public final class VirtualAudioDevice: ALSACalls, Sendable {
    /// The largest clock error a direction takes, in ppm (1 %); larger ones are clamped to it.
    public static let maximumClockErrorPpm = 10_000.0
    /// The largest recording reserved up front, in samples (2^28: 512 MiB, 93 minutes of 48 kHz
    /// mono); larger requests are clamped to it.
    public static let maximumRecordingCapacitySamples = 1 << 28

    private struct PCM {
        var direction: AudioDirection
        var clockErrorPpm: Double
        var parameters = StreamParameters()
        var startNanoseconds: Int64 = 0
        /// Playback frames written before the start (the prefill): the device's lead.
        var queuedAtStart = 0
        /// Frames read or written since the last prepare.
        var transferred = 0
        var started = false
        /// Whether it ever started (its start time stays meaningful after a stop).
        var hasStarted = false
        var ready = false
        var isOpen = true
    }

    private struct State {
        var pcms: [PCM] = []
        var source: [Int16] = []
        var sourcePosition = 0
        var loopsSource = false
        var recordsPlayback = false
        var recordingCapacity: Int? = nil
        var recorded: [Int16] = []
        var recordingDropped = 0
        /// The virtual clock, in nanoseconds (`.virtualClock` only).
        var clock: Int64 = 0
        /// Where streams start their clocks: the grid's origin plus its offset, in whole periods.
        var startGrid: (origin: Int64, offset: Int64)? = nil
    }

    /// How the device keeps time.
    public let pacing: DevicePacing
    /// The capture crystal's error, in ppm, as applied (clamped to ±`maximumClockErrorPpm`).
    public let captureClockErrorPpm: Double
    /// The playback crystal's error, in ppm, as applied (clamped to ±`maximumClockErrorPpm`).
    public let playbackClockErrorPpm: Double
    /// The room between loudspeaker and microphone, if any.
    public let acousticPath: (any VirtualAcousticPath)?
    private let state: Locked<State>

    private init(pacing: DevicePacing, captureClockErrorPpm: Double, playbackClockErrorPpm: Double,
                 acousticPath: (any VirtualAcousticPath)?, state: State) {
        self.pacing = pacing
        self.acousticPath = acousticPath
        self.captureClockErrorPpm = Self.clampedClockError(captureClockErrorPpm)
        self.playbackClockErrorPpm = Self.clampedClockError(playbackClockErrorPpm)
        self.state = Locked(state)
    }

    /// A clock error inside ±`maximumClockErrorPpm`; NaN is no error.
    private static func clampedClockError(_ ppm: Double) -> Double {
        ppm.isNaN ? 0 : min(max(ppm, -maximumClockErrorPpm), maximumClockErrorPpm)
    }

    /// The null device: silence in, nothing out.
    ///
    /// - Parameters:
    ///   - captureClockErrorPpm: the capture crystal's error (clamped to ±10,000 ppm, NaN is 0).
    ///   - playbackClockErrorPpm: the playback crystal's error (clamped likewise).
    ///   - acousticPath: the room between loudspeaker and microphone (nil: none).
    public static func null(pacing: DevicePacing = .realtime, captureClockErrorPpm: Double = 0,
                            playbackClockErrorPpm: Double = 0,
                            acousticPath: (any VirtualAcousticPath)? = nil) -> VirtualAudioDevice {
        VirtualAudioDevice(pacing: pacing, captureClockErrorPpm: captureClockErrorPpm,
                           playbackClockErrorPpm: playbackClockErrorPpm, acousticPath: acousticPath, state: State())
    }

    /// A WAV file device: capture delivers `source`'s samples (then silence, or from the start
    /// again when `loops`), playback is kept in `recording` when `recordsPlayback`.
    /// Open streams on it with `source`'s rate and channel count.
    ///
    /// - Parameters:
    ///   - captureClockErrorPpm: the capture crystal's error (clamped to ±10,000 ppm, NaN is 0).
    ///   - playbackClockErrorPpm: the playback crystal's error (clamped likewise).
    ///   - recordingCapacitySamples: reserves the recording up front (clamped to
    ///     0…`maximumRecordingCapacitySamples`): samples beyond it are dropped and counted in
    ///     `recordingDroppedSamples`, and recording never allocates. Nil: the recording grows.
    ///   - acousticPath: the room between loudspeaker and microphone (nil: none).
    public static func wavFile(_ source: WAVAudio, loops: Bool = false, recordsPlayback: Bool = true,
                               pacing: DevicePacing = .realtime, captureClockErrorPpm: Double = 0,
                               playbackClockErrorPpm: Double = 0,
                               recordingCapacitySamples: Int? = nil,
                               acousticPath: (any VirtualAcousticPath)? = nil) -> VirtualAudioDevice {
        var state = State(source: source.samples, loopsSource: loops, recordsPlayback: recordsPlayback)
        if recordsPlayback, let requested = recordingCapacitySamples {
            let capacity = min(max(requested, 0), maximumRecordingCapacitySamples)
            state.recordingCapacity = capacity
            state.recorded.reserveCapacity(capacity)
        }
        return VirtualAudioDevice(pacing: pacing, captureClockErrorPpm: captureClockErrorPpm,
                                  playbackClockErrorPpm: playbackClockErrorPpm, acousticPath: acousticPath, state: state)
    }

    /// Whether capture has delivered the whole source file.
    public var sourceFinished: Bool { state.withLock { $0.sourcePosition >= $0.source.count } }

    /// The virtual clock, in nanoseconds from the device's creation (0 unless `.virtualClock`).
    public var virtualNanoseconds: Int64 { state.withLock { $0.clock } }

    /// Played samples dropped because the reserved recording was full.
    public var recordingDroppedSamples: Int { state.withLock { $0.recordingDropped } }

    /// Everything played so far (with the prefill silence), at the stream's rate and channels.
    /// A copy: the recording the I/O thread appends to is never shared (sharing would make its
    /// next append copy, and allocate, on that thread).
    public func recording() -> WAVAudio {
        state.withLock { state in
            let parameters = state.pcms.last { $0.direction == .playback }?.parameters ?? StreamParameters()
            let samples = state.recorded.withUnsafeBufferPointer { Array($0) }
            return WAVAudio(sampleRate: parameters.sampleRate, channelCount: parameters.channelCount, samples: samples)
        }
    }

    // MARK: Time

    private static func index(_ pcm: PCMHandle) -> Int { Int(pcm.rawValue) - 1 }

    /// When frame `frame` of the last stream started in `direction` passes the device — is
    /// heard by the microphone, or leaves the loudspeaker (playback counts the prefill written
    /// before the start as its first frames, as `recording()` holds them) — on the device's
    /// clock (CLOCK_MONOTONIC, or the virtual clock); nil before that direction started. Valid
    /// after the stream stopped too.
    /// Mouth-to-ear latency is measured with it.
    public func time(ofFrame frame: Int, direction: AudioDirection) -> Int64? {
        state.withLock { state in
            guard let pcm = state.pcms.last(where: { $0.direction == direction && $0.hasStarted }) else { return nil }
            return pcm.startNanoseconds + Self.nanoseconds(frame, pcm)
        }
    }

    /// Streams started from now on start their clocks at the point nearest their start of a grid:
    /// `origin` plus `offsetNanoseconds` plus whole periods of the stream (so at most half a
    /// period before or after `start` was called; a duplex pair, started back to back, lands on
    /// one point). Their periods then keep a chosen phase against another device's — Bob's
    /// playback against Alice's capture in a mouth-to-ear measurement — which the moment a
    /// thread wakes on a loaded machine does not. Nil `origin`: streams start when started.
    /// Times are on the device's clock (`time(ofFrame:direction:)` reads them).
    public func alignStarts(to origin: Int64?, offsetNanoseconds: Int64 = 0) {
        state.withLock { $0.startGrid = origin.map { ($0, offsetNanoseconds) } }
    }

    /// The grid point nearest `now` (ties go later), or `now` without a grid.
    private static func startTime(_ now: Int64, on grid: (origin: Int64, offset: Int64)?, periodNanoseconds: Int64) -> Int64 {
        guard let grid, periodNanoseconds > 0 else { return now }
        let point = grid.origin &+ grid.offset
        let past = ((now &- point) % periodNanoseconds + periodNanoseconds) % periodNanoseconds
        return past * 2 < periodNanoseconds ? now - past : now + (periodNanoseconds - past)
    }

    /// Now on the device's clock: the virtual clock, or CLOCK_MONOTONIC.
    private func now(virtualClock: Int64) -> Int64 {
        pacing == .virtualClock ? virtualClock : MonotonicClock.nanoseconds
    }

    /// How long `frames` last on `pcm`'s crystal, in nanoseconds: nominal, stretched by its
    /// error. Whole seconds apart, so no count of frames overflows.
    private static func nanoseconds(_ frames: Int, _ pcm: PCM) -> Int64 {
        let rate = Int64(pcm.parameters.sampleRate), count = Int64(max(frames, 0))
        let nominal = count / rate * 1_000_000_000 + count % rate * 1_000_000_000 / rate
        guard pcm.clockErrorPpm != 0 else { return nominal }
        return nominal + Int64((Double(nominal) * pcm.clockErrorPpm * 1e-6).rounded())
    }

    /// Frames `pcm`'s crystal has clocked since its start, at `time`: the most whose duration
    /// has passed (the exact inverse of `nanoseconds`).
    private static func framesElapsed(_ pcm: PCM, at time: Int64) -> Int {
        guard pcm.started, time > pcm.startNanoseconds else { return 0 }
        let elapsed = time - pcm.startNanoseconds
        let scale = 1e9 * (1 + pcm.clockErrorPpm * 1e-6)
        var frames = Int(Double(elapsed) * Double(pcm.parameters.sampleRate) / scale)
        while frames > 0 && nanoseconds(frames, pcm) > elapsed { frames -= 1 }
        while nanoseconds(frames + 1, pcm) <= elapsed { frames += 1 }
        return frames
    }

    /// When the next period of `pcm` is due: capture once its crystal clocked one more period
    /// than was read, playback once it played a period of its lead.
    private static func deadline(_ pcm: PCM) -> Int64 {
        let consumed = pcm.direction == .playback ? pcm.transferred - pcm.queuedAtStart : pcm.transferred
        return pcm.startNanoseconds + nanoseconds(consumed + pcm.parameters.periodFrames, pcm)
    }

    /// Marks ready every started PCM due at `time`; returns how many.
    private static func markDue(_ state: inout State, at time: Int64) -> Int32 {
        var ready: Int32 = 0
        for index in state.pcms.indices where state.pcms[index].isOpen && state.pcms[index].started {
            if deadline(state.pcms[index]) <= time {
                state.pcms[index].ready = true
                ready += 1
            }
        }
        return ready
    }

    // MARK: ALSACalls

    public func open(device: String, direction: AudioDirection) -> (pcm: PCMHandle?, code: Int32) {
        let ppm = direction == .capture ? captureClockErrorPpm : playbackClockErrorPpm
        return state.withLock { state in
            state.pcms.append(PCM(direction: direction, clockErrorPpm: ppm))
            return (PCMHandle(rawValue: UInt(state.pcms.count)), 0)
        }
    }

    public func configure(_ pcm: PCMHandle, _ parameters: inout StreamParameters) -> (code: Int32, function: String) {
        guard parameters.sampleRate > 0, parameters.channelCount > 0, parameters.periodFrames > 0 else {
            return (-Errno.invalidArgument.rawValue, "snd_pcm_hw_params")
        }
        parameters.bufferFrames = max(parameters.bufferFrames, 2 * parameters.periodFrames)
        let negotiated = parameters
        state.withLock { $0.pcms[Self.index(pcm)].parameters = negotiated }
        return (0, "")
    }

    public func close(_ pcm: PCMHandle) { state.withLock { $0.pcms[Self.index(pcm)].isOpen = false } }

    public func prepare(_ pcm: PCMHandle) -> Int32 {
        state.withLock { state in
            let index = Self.index(pcm)
            state.pcms[index].started = false
            state.pcms[index].ready = false
            state.pcms[index].transferred = 0
            state.pcms[index].queuedAtStart = 0
        }
        return 0
    }

    public func start(_ pcm: PCMHandle) -> Int32 {
        state.withLock { state in
            let index = Self.index(pcm)
            state.pcms[index].started = true
            state.pcms[index].hasStarted = true
            state.pcms[index].startNanoseconds = Self.startTime(now(virtualClock: state.clock), on: state.startGrid,
                                                                periodNanoseconds: Self.nanoseconds(state.pcms[index].parameters.periodFrames,
                                                                                                    state.pcms[index]))
            if state.pcms[index].direction == .playback {
                state.pcms[index].queuedAtStart = state.pcms[index].transferred
            } else {
                state.pcms[index].transferred = 0
            }
        }
        return 0
    }

    public func drop(_ pcm: PCMHandle) -> Int32 {
        state.withLock { state in
            state.pcms[Self.index(pcm)].started = false
            state.pcms[Self.index(pcm)].ready = false
        }
        return 0
    }

    public func recover(_ pcm: PCMHandle, error: Int32) -> Int32 { prepare(pcm) }
    public func resume(_ pcm: PCMHandle) -> Int32 { 0 }

    public func read(_ pcm: PCMHandle, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        let (count, channels) = readSource(pcm, into: buffer, frames: frames)
        if count > 0, let acousticPath {
            acousticPath.microphoneCaptured(UnsafeMutableBufferPointer(start: buffer, count: count * channels))
        }
        return count
    }

    /// Capture's own part of `read`: the source's next period, if one is due, and the
    /// stream's channel count.
    private func readSource(_ pcm: PCMHandle, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> (Int, Int) {
        state.withLock { state in
            let index = Self.index(pcm)
            let channels = state.pcms[index].parameters.channelCount
            guard state.pcms[index].ready else { return (-Int(Errno.resourceTemporarilyUnavailable.rawValue), channels) }
            state.pcms[index].ready = false
            let count = min(frames, state.pcms[index].parameters.periodFrames)
            let samples = count * state.pcms[index].parameters.channelCount
            for sample in 0..<samples {
                if state.loopsSource && state.sourcePosition >= state.source.count && !state.source.isEmpty { state.sourcePosition = 0 }
                if state.sourcePosition < state.source.count {
                    buffer[sample] = state.source[state.sourcePosition]
                    state.sourcePosition += 1
                } else {
                    buffer[sample] = 0
                }
            }
            state.pcms[index].transferred += count
            return (count, channels)
        }
    }

    public func write(_ pcm: PCMHandle, from buffer: UnsafePointer<Int16>, frames: Int) -> Int {
        let (written, channels) = state.withLock { state in
            let index = Self.index(pcm)
            if state.recordsPlayback {
                let samples = frames * state.pcms[index].parameters.channelCount
                var kept = samples
                if let capacity = state.recordingCapacity {
                    kept = min(samples, max(capacity - state.recorded.count, 0))
                    state.recordingDropped += samples - kept
                }
                state.recorded.append(contentsOf: UnsafeBufferPointer(start: buffer, count: kept))
            }
            state.pcms[index].transferred += frames
            return (frames, state.pcms[index].parameters.channelCount)
        }
        if let acousticPath {
            acousticPath.loudspeakerPlayed(UnsafeBufferPointer(start: buffer, count: frames * channels))
        }
        return written
    }

    public func availableFrames(_ pcm: PCMHandle) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            guard state.pcms[index].ready else { return 0 }
            state.pcms[index].ready = false
            return state.pcms[index].parameters.periodFrames
        }
    }

    /// Capture: frames its crystal clocked that were not read yet. Playback: frames written and
    /// not yet played by its crystal (the prefill's lead, in steady state). As fast as possible
    /// there is no clock: capture 0, playback the lead.
    public func delay(_ pcm: PCMHandle) -> (code: Int32, frames: Int) {
        state.withLock { state in
            let pcm = state.pcms[Self.index(pcm)]
            guard pcm.started else { return (0, pcm.direction == .playback ? pcm.transferred : 0) }
            if pacing == .asFastAsPossible { return (0, pcm.direction == .playback ? pcm.queuedAtStart : 0) }
            let clocked = Self.framesElapsed(pcm, at: now(virtualClock: state.clock))
            let queued = pcm.direction == .playback ? pcm.transferred - clocked : clocked - pcm.transferred
            return (0, max(queued, 0))
        }
    }

    /// The device's clock: the virtual clock on `.virtualClock`, CLOCK_MONOTONIC otherwise.
    public func timestamp(_ pcm: PCMHandle) -> (code: Int32, nanoseconds: Int64) {
        (0, state.withLock { now(virtualClock: $0.clock) })
    }

    public func pollDescriptorCount(_ pcm: PCMHandle) -> Int { 1 }

    public func pollDescriptors(_ pcm: PCMHandle, into descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> Int {
        descriptors.pointee = PollDescriptor()
        return 1
    }

    public func pollEvents(_ pcm: PCMHandle, descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> (code: Int32, events: PollEvents) {
        state.withLock { state in
            let pcm = state.pcms[Self.index(pcm)]
            guard pcm.ready else { return (0, []) }
            return (0, pcm.direction == .capture ? .input : .output)
        }
    }

    /// Real time: sleeps until the earliest deadline (or `timeoutMs`, or the stop waker, the last
    /// descriptor). Virtual clock: moves the clock to the earliest deadline, never sleeping or
    /// timing out (nothing started: nothing moves, 0). As fast as possible: everything started
    /// is ready. Returns how many PCMs are ready.
    public func poll(_ descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int, timeoutMs: Int32) -> Int32 {
        awaitPeriods(timeoutMs: timeoutMs, waker: count > 0 ? descriptors[count - 1].fileDescriptor : -1)
    }

    /// `poll`'s wait without descriptors: until a started PCM is due (by the pacing), at most
    /// `timeoutMs` in real time, or until `waker` (a descriptor; -1 for none) becomes readable.
    /// Returns how many PCMs are ready.
    func awaitPeriods(timeoutMs: Int32, waker: Int32) -> Int32 {
        switch pacing {
        case .asFastAsPossible:
            return state.withLock { Self.markDue(&$0, at: .max) }
        case .virtualClock:
            return state.withLock { state in
                var earliest = Int64.max
                for index in state.pcms.indices where state.pcms[index].isOpen && state.pcms[index].started {
                    earliest = min(earliest, Self.deadline(state.pcms[index]))
                }
                guard earliest != .max else { return 0 }
                state.clock = max(state.clock, earliest)
                return Self.markDue(&state, at: state.clock)
            }
        case .realtime:
            let now = MonotonicClock.nanoseconds
            var wakeAt = now + Int64(max(timeoutMs, 0)) * 1_000_000
            state.withLock { state in
                for index in state.pcms.indices where state.pcms[index].isOpen && state.pcms[index].started {
                    wakeAt = min(wakeAt, Self.deadline(state.pcms[index]))
                }
            }
            if wakeAt > now {
                _ = StopWakerWait.sleep(untilNanoseconds: wakeAt, waker: waker)
            }
            let woke = MonotonicClock.nanoseconds
            return state.withLock { Self.markDue(&$0, at: woke) }
        }
    }

    /// Sleeps (real time), or moves the virtual clock on by as much (`.virtualClock`).
    public func sleep(microseconds: UInt32) {
        if pacing == .virtualClock {
            state.withLock { $0.clock += Int64(microseconds) * 1_000 }
        } else {
            usleep(microseconds)
        }
    }

    public func cards() -> [AudioCard] { [] }

    public func devices() -> [AudioDeviceInfo] {
        [AudioDeviceInfo(name: "null", description: "Null device (silence in, nothing out)", directions: .duplex, card: nil)]
    }
}
