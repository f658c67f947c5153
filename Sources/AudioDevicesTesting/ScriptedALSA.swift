#if canImport(Glibc)
import Glibc
#endif
import AudioDevices
import Synchronization

/// An ALSA layer for tests that plays back scripted faults (as swift-system mocks syscalls).
///
/// Every PCM is always ready: `poll` returns at once (after `pollIntervalMicroseconds`, to pace
/// a threaded stream), capture delivers one period of a ramp per wake-up, playback accepts one
/// period per wake-up. Scripted results are consumed in order: `failIO(.capture, -EPIPE)` makes
/// the next capture read return `-EPIPE`, `scriptResume([-EAGAIN, -EAGAIN, 0])` answers the next
/// three `snd_pcm_resume` calls. Control calls (open, configure, prepare, start, recover,
/// resume, drop, close) are logged in `log`; per-period calls are not, and allocate nothing.
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
        var pollEvents: [[Int16]] = [[], []]
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
    }

    private let state = Mutex(State())
    /// Real time `poll` waits, in microseconds (0: no wait).
    public let pollIntervalMicroseconds: UInt32

    /// A fault-free device; `recordPlayback` keeps what is played in `recordedPlayback`.
    public init(pollIntervalMicroseconds: UInt32 = 0, recordPlayback: Bool = false) {
        self.pollIntervalMicroseconds = pollIntervalMicroseconds
        state.withLock {
            $0.recordPlayback = recordPlayback
            $0.recorded.reserveCapacity(recordPlayback ? 1 << 20 : 0)
        }
    }

    // MARK: Scripting

    /// The next reads (capture) or avail/write calls (playback) return these codes, in order.
    /// A positive value is a frame count for a short transfer.
    public func failIO(_ direction: AudioDirection, _ codes: Int...) {
        state.withLock { $0.io[direction.rawValue].append(contentsOf: codes) }
    }

    /// The next `snd_pcm_poll_descriptors_revents` results for `direction`'s PCM.
    public func scriptPollEvents(_ direction: AudioDirection, _ events: Int16...) {
        state.withLock { $0.pollEvents[direction.rawValue].append(contentsOf: events) }
    }

    /// Results of the next `snd_pcm_open` calls (0 succeeds).
    public func scriptOpen(_ results: [Int32]) { state.withLock { $0.openResults.append(contentsOf: results) } }
    /// Results of the next `snd_pcm_prepare` calls.
    public func scriptPrepare(_ results: [Int32]) { state.withLock { $0.prepareResults.append(contentsOf: results) } }
    /// Results of the next `snd_pcm_recover` calls.
    public func scriptRecover(_ results: [Int32]) { state.withLock { $0.recoverResults.append(contentsOf: results) } }
    /// Results of the next `snd_pcm_resume` calls.
    public func scriptResume(_ results: [Int32]) { state.withLock { $0.resumeResults.append(contentsOf: results) } }
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

    // MARK: ALSACalls

    private static func index(_ pcm: OpaquePointer) -> Int { Int(bitPattern: pcm) - 1 }

    private func direction(_ pcm: OpaquePointer) -> AudioDirection {
        state.withLock { $0.pcms[Self.index(pcm)].direction }
    }

    private func control(_ pcm: OpaquePointer, _ name: String, _ results: WritableKeyPath<State, [Int32]>?) -> Int32 {
        state.withLock { state in
            let direction = state.pcms[Self.index(pcm)].direction
            state.log.append("\(name) \(direction)")
            guard let results, !state[keyPath: results].isEmpty else { return 0 }
            return state[keyPath: results].removeFirst()
        }
    }

    public func open(device: String, direction: AudioDirection) -> (pcm: OpaquePointer?, code: Int32) {
        state.withLock { state in
            state.log.append("open \(direction)")
            if !state.openResults.isEmpty {
                let code = state.openResults.removeFirst()
                if code < 0 { return (nil, code) }
            }
            state.pcms.append(PCM(direction: direction))
            return (OpaquePointer(bitPattern: state.pcms.count), 0)
        }
    }

    public func configure(_ pcm: OpaquePointer, _ parameters: inout StreamParameters) -> (code: Int32, function: String) {
        let negotiated = parameters
        state.withLock { state in
            state.pcms[Self.index(pcm)].parameters = negotiated
            state.log.append("configure \(state.pcms[Self.index(pcm)].direction)")
        }
        return (0, "")
    }

    public func close(_ pcm: OpaquePointer) {
        state.withLock { state in
            state.pcms[Self.index(pcm)].isOpen = false
            state.log.append("close \(state.pcms[Self.index(pcm)].direction)")
        }
    }

    public func prepare(_ pcm: OpaquePointer) -> Int32 { control(pcm, "prepare", \.prepareResults) }
    public func start(_ pcm: OpaquePointer) -> Int32 { control(pcm, "start", nil) }
    public func drop(_ pcm: OpaquePointer) -> Int32 { control(pcm, "drop", nil) }
    public func recover(_ pcm: OpaquePointer, error: Int32) -> Int32 { control(pcm, "recover", \.recoverResults) }
    public func resume(_ pcm: OpaquePointer) -> Int32 { control(pcm, "resume", \.resumeResults) }

    /// The scripted result of the next transfer: a code, a short count, or the whole request.
    private func transfer(_ state: inout State, _ index: Int, frames: Int) -> Int {
        let direction = state.pcms[index].direction.rawValue
        if !state.io[direction].isEmpty { return state.io[direction].removeFirst() }
        guard state.pcms[index].ready else { return -Int(EAGAIN) }
        state.pcms[index].ready = false
        return min(frames, state.pcms[index].parameters.periodFrames)
    }

    public func read(_ pcm: OpaquePointer, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
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

    public func write(_ pcm: OpaquePointer, from buffer: UnsafePointer<Int16>, frames: Int) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            let direction = AudioDirection.playback.rawValue
            if !state.io[direction].isEmpty { return state.io[direction].removeFirst() }
            if state.recordPlayback {
                state.recorded.append(contentsOf: UnsafeBufferPointer(start: buffer, count: frames * state.pcms[index].parameters.channelCount))
            }
            state.frames[direction] += frames
            return frames
        }
    }

    public func availableFrames(_ pcm: OpaquePointer) -> Int {
        state.withLock { state in
            let index = Self.index(pcm)
            let direction = state.pcms[index].direction.rawValue
            if let next = state.io[direction].first, next < 0 { return state.io[direction].removeFirst() }
            guard state.pcms[index].ready else { return 0 }
            state.pcms[index].ready = false
            return state.pcms[index].parameters.periodFrames
        }
    }

    public func delay(_ pcm: OpaquePointer) -> (code: Int32, frames: Int) {
        let frames: Int = state.withLock { $0.pcms[Self.index(pcm)].parameters.periodFrames * 2 }
        return (0, frames)
    }

    public func timestamp(_ pcm: OpaquePointer) -> (code: Int32, nanoseconds: Int64) { (0, MonotonicClock.nanoseconds) }

    public func pollDescriptorCount(_ pcm: OpaquePointer) -> Int { 1 }

    public func pollDescriptors(_ pcm: OpaquePointer, into fds: UnsafeMutablePointer<pollfd>, count: Int) -> Int {
        fds.pointee = pollfd(fd: -1, events: direction(pcm) == .capture ? Int16(POLLIN) : Int16(POLLOUT), revents: 0)
        return 1
    }

    public func pollEvents(_ pcm: OpaquePointer, fds: UnsafeMutablePointer<pollfd>, count: Int) -> (code: Int32, events: Int16) {
        // Scalars only out of the lock: a tuple result allocates in unoptimised builds.
        let events: Int16 = state.withLock { state in
            let direction = state.pcms[Self.index(pcm)].direction
            if !state.pollEvents[direction.rawValue].isEmpty { return state.pollEvents[direction.rawValue].removeFirst() }
            return direction == .capture ? Int16(POLLIN) : Int16(POLLOUT)
        }
        return (0, events)
    }

    public func poll(_ fds: UnsafeMutablePointer<pollfd>, count: Int, timeoutMs: Int32) -> Int32 {
        if pollIntervalMicroseconds > 0 { usleep(pollIntervalMicroseconds) }
        state.withLock { state in
            for index in state.pcms.indices { state.pcms[index].ready = state.pcms[index].isOpen }
        }
        return Int32(count)
    }

    public func sleep(microseconds: UInt32) {
        state.withLock { $0.sleptMicroseconds += Int(microseconds) }
    }

    public func cards() -> [AudioCard] { state.withLock { $0.cards } }
    public func devices() -> [AudioDeviceInfo] { state.withLock { $0.devices } }
}
