internal import Glibc
import AudioDevices
import Synchronization
import SystemErrors

/// A device without ALSA, driven through the same `ALSACalls` layer so an `ALSAStream` runs on
/// it unchanged: the null device (capture gives silence, playback is discarded) or a WAV file
/// device (capture plays the file, playback is recorded), paced in real time or as fast as
/// possible.
///
/// ```swift
/// let device = VirtualAudioDevice.wavFile(try WAVAudio(contentsOf: url), pacing: .realtime)
/// let stream = try ALSAStream(device: "wav", calls: device)
/// ```
///
/// Recording playback appends to an array on the I/O thread (it grows, so it allocates); use
/// the null device where the no-allocation rule matters.
public final class VirtualAudioDevice: ALSACalls, Sendable {
    private struct PCM {
        var direction: AudioDirection
        var parameters = StreamParameters()
        var startNanoseconds: Int64 = 0
        var framesBeforeStart = 0
        var frames = 0
        var started = false
        var ready = false
        var isOpen = true
    }

    private struct State {
        var pcms: [PCM] = []
        var source: [Int16] = []
        var sourcePosition = 0
        var loopsSource = false
        var recordsPlayback = false
        var recorded: [Int16] = []
    }

    /// How the device keeps time.
    public let pacing: DevicePacing
    private let state: Mutex<State>

    private init(pacing: DevicePacing, state: State) {
        self.pacing = pacing
        self.state = Mutex(state)
    }

    /// The null device: silence in, nothing out.
    public static func null(pacing: DevicePacing = .realtime) -> VirtualAudioDevice {
        VirtualAudioDevice(pacing: pacing, state: State())
    }

    /// A WAV file device: capture delivers `source`'s samples (then silence, or from the start
    /// again when `loops`), playback is kept in `recording` when `recordsPlayback`.
    /// Open streams on it with `source`'s rate and channel count.
    public static func wavFile(_ source: WAVAudio, loops: Bool = false, recordsPlayback: Bool = true,
                               pacing: DevicePacing = .realtime) -> VirtualAudioDevice {
        VirtualAudioDevice(pacing: pacing, state: State(source: source.samples, loopsSource: loops, recordsPlayback: recordsPlayback))
    }

    /// Whether capture has delivered the whole source file.
    public var sourceFinished: Bool { state.withLock { $0.sourcePosition >= $0.source.count } }

    /// Everything played so far (with the prefill silence), at the stream's rate and channels.
    public func recording() -> WAVAudio {
        state.withLock { state in
            let parameters = state.pcms.last { $0.direction == .playback }?.parameters ?? StreamParameters()
            return WAVAudio(sampleRate: parameters.sampleRate, channelCount: parameters.channelCount, samples: state.recorded)
        }
    }

    private static func index(_ pcm: PCMHandle) -> Int { Int(pcm.rawValue) - 1 }

    public func open(device: String, direction: AudioDirection) -> (pcm: PCMHandle?, code: Int32) {
        state.withLock { state in
            state.pcms.append(PCM(direction: direction))
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
            state.pcms[index].framesBeforeStart = state.pcms[index].frames
        }
        return 0
    }

    public func start(_ pcm: PCMHandle) -> Int32 {
        let now = MonotonicClock.nanoseconds
        state.withLock { state in
            let index = Self.index(pcm)
            state.pcms[index].started = true
            state.pcms[index].startNanoseconds = now
            state.pcms[index].framesBeforeStart = state.pcms[index].direction == .playback ? state.pcms[index].frames : 0
            state.pcms[index].frames = state.pcms[index].direction == .playback ? state.pcms[index].frames : 0
        }
        return 0
    }

    public func drop(_ pcm: PCMHandle) -> Int32 { state.withLock { $0.pcms[Self.index(pcm)].started = false }; return 0 }
    public func recover(_ pcm: PCMHandle, error: Int32) -> Int32 { prepare(pcm) }
    public func resume(_ pcm: PCMHandle) -> Int32 { 0 }

    public func read(_ pcm: PCMHandle, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            guard state.pcms[index].ready else { return -Int(Errno.resourceTemporarilyUnavailable.rawValue) }
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
            state.pcms[index].frames += count
            return count
        }
    }

    public func write(_ pcm: PCMHandle, from buffer: UnsafePointer<Int16>, frames: Int) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            if state.recordsPlayback {
                state.recorded.append(contentsOf: UnsafeBufferPointer(start: buffer, count: frames * state.pcms[index].parameters.channelCount))
            }
            state.pcms[index].frames += frames
            return frames
        }
    }

    public func availableFrames(_ pcm: PCMHandle) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            guard state.pcms[index].ready else { return 0 }
            state.pcms[index].ready = false
            return state.pcms[index].parameters.periodFrames
        }
    }

    public func delay(_ pcm: PCMHandle) -> (code: Int32, frames: Int) {
        state.withLock { state in
            let pcm = state.pcms[Self.index(pcm)]
            return (0, pcm.direction == .playback ? pcm.framesBeforeStart : 0)
        }
    }

    public func timestamp(_ pcm: PCMHandle) -> (code: Int32, nanoseconds: Int64) { (0, MonotonicClock.nanoseconds) }
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

    /// When the next period of `pcm` is due (playback runs `framesBeforeStart` ahead).
    private static func deadline(_ pcm: PCM) -> Int64 {
        let consumed = pcm.direction == .playback ? pcm.frames - pcm.framesBeforeStart : pcm.frames
        let due = consumed + pcm.parameters.periodFrames
        return pcm.startNanoseconds + Int64(due) * 1_000_000_000 / Int64(pcm.parameters.sampleRate)
    }

    public func poll(_ descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int, timeoutMs: Int32) -> Int32 {
        let now = MonotonicClock.nanoseconds
        var wakeAt = now + Int64(max(timeoutMs, 0)) * 1_000_000
        if pacing == .realtime {
            state.withLock { state in
                for pcm in state.pcms where pcm.isOpen && pcm.started { wakeAt = min(wakeAt, Self.deadline(pcm)) }
            }
            if wakeAt > now {
                var pause = timespec(tv_sec: Int(wakeAt / 1_000_000_000), tv_nsec: Int(wakeAt % 1_000_000_000))
                clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &pause, nil)
            }
        }
        let woke = pacing == .realtime ? MonotonicClock.nanoseconds : Int64.max
        return state.withLock { state in
            var ready: Int32 = 0
            for index in state.pcms.indices where state.pcms[index].isOpen && state.pcms[index].started {
                if Self.deadline(state.pcms[index]) <= woke {
                    state.pcms[index].ready = true
                    ready += 1
                }
            }
            return ready
        }
    }

    public func sleep(microseconds: UInt32) { usleep(microseconds) }
    public func cards() -> [AudioCard] { [] }

    public func devices() -> [AudioDeviceInfo] {
        [AudioDeviceInfo(name: "null", description: "Null device (silence in, nothing out)", directions: .duplex, card: nil)]
    }
}
