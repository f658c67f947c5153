// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import AudioDevices
import Locking
import Synchronization
import SystemErrors

/// An ALSA layer for tests that plays back scripted faults (as swift-system mocks syscalls).
///
/// Every PCM is always ready: `poll` returns at once (after `pollIntervalMicroseconds`, to pace
/// a threaded stream; a stream's stop waker ends that wait early), capture delivers one period
/// of a ramp per wake-up, playback accepts one period per wake-up. Scripted results are consumed in order: `failIO(.capture, .brokenPipe)`
/// makes the next capture read return `-EPIPE`, `scriptResume([.resourceTemporarilyUnavailable,
/// .resourceTemporarilyUnavailable, nil])` answers the next three `snd_pcm_resume` calls
/// (`-EAGAIN` twice, then success). Control calls (open, configure, prepare, start, recover,
/// resume, drop, close) are logged in `log`; per-period calls are not (writes are, as
/// `"write playback"`, when `logsWrites`), and allocate nothing.
public final class ScriptedALSA: ALSACalls, Sendable {
    private struct PCM {
        var direction: AudioDirection
        var parameters = StreamParameters()
        var ready = false
        var isOpen = true
    }

    private struct State {
        var pcms: [PCM] = []
        var io: [[Int]] = [[], []]
        var pollEvents: [[PollEvents]] = [[], []]
        var openResults: [Int32] = []
        var prepareResults: [Int32] = []
        var recoverResults: [Int32] = []
        var resumeResults: [Int32] = []
        var log: [String] = []
        var frames: [Int] = [0, 0]
        var ramp: Int16 = 0
        var sleptMicroseconds = 0
        var cards: [AudioCard] = []
        var devices: [AudioDeviceInfo] = []
        var recorded: [Int16] = []
        var recordPlayback = false
        var logsWrites = false
        var stopWaker: Int32?
        var pollTimeouts = 0
        var openRefusal: Int32 = 0
    }

    private let state = Locked(State())
    /// Real time `poll` waits, in microseconds (0: no wait).
    public let pollIntervalMicroseconds: UInt32

    /// A fault-free device; `recordPlayback` keeps what is played in `recordedPlayback`;
    /// `logsWrites` adds every `snd_pcm_writei` to `log` (the prefill's among them).
    public init(pollIntervalMicroseconds: UInt32 = 0, recordPlayback: Bool = false, logsWrites: Bool = false) {
        self.pollIntervalMicroseconds = pollIntervalMicroseconds
        state.withLock {
            $0.recordPlayback = recordPlayback
            $0.logsWrites = logsWrites
            $0.recorded.reserveCapacity(recordPlayback ? 1 << 20 : 0)
        }
    }

    // MARK: Scripting

    /// The next reads (capture) or avail/write calls (playback) fail with these errors, in order.
    public func failIO(_ direction: AudioDirection, _ errors: Errno...) {
        state.withLock { $0.io[direction.rawValue].append(contentsOf: errors.map { -Int($0.rawValue) }) }
    }

    /// The next `snd_pcm_poll_descriptors_revents` results for `direction`'s PCM.
    public func scriptPollEvents(_ direction: AudioDirection, _ events: PollEvents...) {
        state.withLock { $0.pollEvents[direction.rawValue].append(contentsOf: events) }
    }

    /// Results of the next `snd_pcm_open` calls (nil succeeds).
    public func scriptOpen(_ results: [Errno?]) { state.withLock { $0.openResults.append(contentsOf: Self.returnValues(results)) } }
    /// Results of the next `snd_pcm_prepare` calls (nil succeeds).
    public func scriptPrepare(_ results: [Errno?]) { state.withLock { $0.prepareResults.append(contentsOf: Self.returnValues(results)) } }
    /// Results of the next `snd_pcm_recover` calls (nil succeeds).
    public func scriptRecover(_ results: [Errno?]) { state.withLock { $0.recoverResults.append(contentsOf: Self.returnValues(results)) } }
    /// Results of the next `snd_pcm_resume` calls (nil succeeds).
    public func scriptResume(_ results: [Errno?]) { state.withLock { $0.resumeResults.append(contentsOf: Self.returnValues(results)) } }
    /// Every `snd_pcm_open` fails with `errno` from now on, until called with nil: a device
    /// that is gone (`.noSuchDevice`), held by another process (`.resourceBusy`), or whose sound
    /// server is down (`.connectionRefused`). Scripted results (`scriptOpen`) come first.
    public func refuseOpens(with errno: Errno?) { state.withLock { $0.openRefusal = -(errno?.rawValue ?? 0) } }
    /// The next `count` polls time out (return 0, nothing ready).
    public func scriptPollTimeouts(_ count: Int) { state.withLock { $0.pollTimeouts += max(count, 0) } }
    /// The cards `cards()` reports from now on (inject hot-plug).
    public func setCards(_ cards: [AudioCard]) { state.withLock { $0.cards = cards } }
    /// The devices `devices()` reports from now on.
    public func setDevices(_ devices: [AudioDeviceInfo]) { state.withLock { $0.devices = devices } }

    // MARK: Inspection

    /// Control calls made so far, e.g. `["open capture", "configure capture", "start capture"]`.
    public var log: [String] { state.withLock { $0.log } }
    /// Forgets the log.
    public func clearLog() { state.withLock { $0.log.removeAll(keepingCapacity: true) } }
    /// Frames transferred in `direction`.
    public func frames(_ direction: AudioDirection) -> Int { state.withLock { $0.frames[direction.rawValue] } }
    /// Microseconds the stream asked to sleep (not actually slept).
    public var sleptMicroseconds: Int { state.withLock { $0.sleptMicroseconds } }
    /// PCMs currently open.
    public var openCount: Int { state.withLock { $0.pcms.filter(\.isOpen).count } }
    /// What was played, when recording.
    public var recordedPlayback: [Int16] { state.withLock { $0.recorded } }
    /// The stop waker of the last `poll` (its last descriptor), nil before the first.
    public var stopWakerDescriptor: Int32? { state.withLock { $0.stopWaker } }

    /// What ALSA returns for each result: 0 for success, the negated errno for a failure.
    private static func returnValues(_ results: [Errno?]) -> [Int32] { results.map { -($0?.rawValue ?? 0) } }

    // MARK: ALSACalls

    private static func index(_ pcm: PCMHandle) -> Int { Int(pcm.rawValue) - 1 }

    private func direction(_ pcm: PCMHandle) -> AudioDirection {
        state.withLock { $0.pcms[Self.index(pcm)].direction }
    }

    private func control(_ pcm: PCMHandle, _ name: String, _ results: WritableKeyPath<State, [Int32]>?) -> Int32 {
        state.withLock { state in
            let direction = state.pcms[Self.index(pcm)].direction
            state.log.append("\(name) \(direction)")
            guard let results, !state[keyPath: results].isEmpty else { return 0 }
            return state[keyPath: results].removeFirst()
        }
    }

    public func open(device: String, direction: AudioDirection) -> (pcm: PCMHandle?, code: Int32) {
        state.withLock { state in
            state.log.append("open \(direction)")
            if !state.openResults.isEmpty {
                let code = state.openResults.removeFirst()
                if code < 0 { return (nil, code) }
            }
            if state.openRefusal < 0 { return (nil, state.openRefusal) }
            state.pcms.append(PCM(direction: direction))
            return (PCMHandle(rawValue: UInt(state.pcms.count)), 0)
        }
    }

    public func configure(_ pcm: PCMHandle, _ parameters: inout StreamParameters) -> (code: Int32, function: String) {
        let negotiated = parameters
        state.withLock { state in
            state.pcms[Self.index(pcm)].parameters = negotiated
            state.log.append("configure \(state.pcms[Self.index(pcm)].direction)")
        }
        return (0, "")
    }

    public func close(_ pcm: PCMHandle) {
        state.withLock { state in
            state.pcms[Self.index(pcm)].isOpen = false
            state.log.append("close \(state.pcms[Self.index(pcm)].direction)")
        }
    }

    public func prepare(_ pcm: PCMHandle) -> Int32 { control(pcm, "prepare", \.prepareResults) }
    public func start(_ pcm: PCMHandle) -> Int32 { control(pcm, "start", nil) }
    public func drop(_ pcm: PCMHandle) -> Int32 { control(pcm, "drop", nil) }
    public func recover(_ pcm: PCMHandle, error: Int32) -> Int32 { control(pcm, "recover", \.recoverResults) }
    public func resume(_ pcm: PCMHandle) -> Int32 { control(pcm, "resume", \.resumeResults) }

    /// The scripted result of the next transfer: a code, a short count, or the whole request.
    private func transfer(_ state: inout State, _ index: Int, frames: Int) -> Int {
        let direction = state.pcms[index].direction.rawValue
        if !state.io[direction].isEmpty { return state.io[direction].removeFirst() }
        guard state.pcms[index].ready else { return -Int(Errno.resourceTemporarilyUnavailable.rawValue) }
        state.pcms[index].ready = false
        return min(frames, state.pcms[index].parameters.periodFrames)
    }

    public func read(_ pcm: PCMHandle, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            let count = transfer(&state, index, frames: frames)
            guard count > 0 else { return count }
            for sample in 0..<count * state.pcms[index].parameters.channelCount {
                buffer[sample] = state.ramp
                state.ramp &+= 1
            }
            state.frames[AudioDirection.capture.rawValue] += count
            return count
        }
    }

    public func write(_ pcm: PCMHandle, from buffer: UnsafePointer<Int16>, frames: Int) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            let direction = AudioDirection.playback.rawValue
            if state.logsWrites { state.log.append("write playback") }
            if !state.io[direction].isEmpty { return state.io[direction].removeFirst() }
            if state.recordPlayback {
                state.recorded.append(contentsOf: UnsafeBufferPointer(start: buffer, count: frames * state.pcms[index].parameters.channelCount))
            }
            state.frames[direction] += frames
            return frames
        }
    }

    public func availableFrames(_ pcm: PCMHandle) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            let direction = state.pcms[index].direction.rawValue
            if let next = state.io[direction].first, next < 0 { return state.io[direction].removeFirst() }
            guard state.pcms[index].ready else { return 0 }
            state.pcms[index].ready = false
            return state.pcms[index].parameters.periodFrames
        }
    }

    public func delay(_ pcm: PCMHandle) -> (code: Int32, frames: Int) {
        let frames: Int = state.withLock { $0.pcms[Self.index(pcm)].parameters.periodFrames * 2 }
        return (0, frames)
    }

    public func timestamp(_ pcm: PCMHandle) -> (code: Int32, nanoseconds: Int64) { (0, MonotonicClock.nanoseconds) }

    public func pollDescriptorCount(_ pcm: PCMHandle) -> Int { 1 }

    public func pollDescriptors(_ pcm: PCMHandle, into descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> Int {
        descriptors.pointee = PollDescriptor(events: direction(pcm) == .capture ? .input : .output)
        return 1
    }

    public func pollEvents(_ pcm: PCMHandle, descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> (code: Int32, events: PollEvents) {
        // Scalars only out of the lock: a tuple result allocates in unoptimised builds.
        let events: PollEvents = state.withLock { state in
            let direction = state.pcms[Self.index(pcm)].direction
            if !state.pollEvents[direction.rawValue].isEmpty { return state.pollEvents[direction.rawValue].removeFirst() }
            return direction == .capture ? .input : .output
        }
        return (0, events)
    }

    /// Every open PCM is ready, after `pollIntervalMicroseconds` (ignoring `timeoutMs`) or as
    /// soon as the stop waker, the last descriptor, is readable; a scripted timeout returns 0.
    public func poll(_ descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int, timeoutMs: Int32) -> Int32 {
        let waker = count > 0 ? descriptors[count - 1].fileDescriptor : -1
        state.withLock { $0.stopWaker = waker }
        if pollIntervalMicroseconds > 0 {
            let deadline = MonotonicClock.nanoseconds + Int64(pollIntervalMicroseconds) * 1_000
            _ = StopWakerWait.sleep(untilNanoseconds: deadline, waker: waker)
        }
        return state.withLock { state in
            if state.pollTimeouts > 0 {
                state.pollTimeouts -= 1
                return 0
            }
            for index in state.pcms.indices { state.pcms[index].ready = state.pcms[index].isOpen }
            return Int32(count)
        }
    }

    public func sleep(microseconds: UInt32) {
        state.withLock { $0.sleptMicroseconds += Int(microseconds) }
    }

    public func cards() -> [AudioCard] { state.withLock { $0.cards } }
    public func devices() -> [AudioDeviceInfo] { state.withLock { $0.devices } }
}
