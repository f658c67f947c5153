// SPDX-License-Identifier: Apache-2.0
internal import Glibc
import Locking
import Synchronization
public import SystemErrors

/// A capture, playback or duplex PCM stream with its own real-time I/O thread.
///
/// Opening negotiates S16_LE at the requested rate, channels, period and buffer (read the
/// result from `parameters(for:)`). `start()` prefills playback with silence, starts every PCM
/// back to back and spawns one thread that waits with `poll` on all their descriptors and moves
/// whole periods between the device and two preallocated rings: the app reads captured audio
/// with `read(into:)` and queues audio to play with `write(_:)` from its own thread. The I/O
/// thread never allocates or locks per period.
///
/// An engine whose audio thread is the I/O thread itself passes `onCycle` to `start`: it is
/// called on every wake-up after the capture PCM was served and before the playback PCM is,
/// so it reads what was just captured and what it writes is played from this very wake-up.
///
/// Faults are handled on that thread: `EPIPE` is recovered and counted, `ESTRPIPE` resumed
/// (then prepared), repeated failures close and reopen the PCM, and a device that is gone is
/// reported as `.deviceLost` on `events` and to the event handler, never as a crash or a hang.
/// In a duplex stream an xrun or suspend of either direction restarts both together
/// (`.restarted`, `restartCount`), so capture and playback never drift out of phase.
/// Events are posted from the I/O thread on these fault paths only (posting takes the
/// `AsyncStream`'s lock); the per-period path never does.
///
/// A stream runs once: after `stop()`, open a new one.
///
/// `Calls` is the ALSA layer: `SystemALSA` for real devices; `ScriptedALSA` (tests) and
/// `VirtualAudioDevice` (null and WAV file devices) from AudioDevicesTesting.
public final class ALSAStream<Calls: ALSACalls>: @unchecked Sendable {
    /// The PCM name the stream opened.
    public let device: String
    /// The directions it opened.
    public let directions: StreamDirections
    /// Faults and recoveries, as they happen (buffering the newest 256).
    public let events: AsyncStream<AudioDeviceEvent>

    private let loop: PCMIOLoop<Calls>
    private let capture: PCMChannel<Calls>?
    private let playback: PCMChannel<Calls>?
    private let continuation: AsyncStream<AudioDeviceEvent>.Continuation
    private let state = Locked<(thread: JoinableThread?, started: Bool, detached: Bool)>((nil, false, false))

    /// How long `stop()` waits for the I/O thread to end.
    private static var stopTimeoutMilliseconds: Int32 { 2_000 }
    /// Raised by the I/O thread as it leaves: `stop()` waits on it with a deadline, then joins
    /// (a plain `pthread_join`, which every tool understands, on a thread known to be ending).
    private let exitSignal: StopWaker

    /// Opens `device` in `directions` with `parameters` through `calls`.
    ///
    /// - Parameters:
    ///   - device: the ALSA PCM name (`default`, `hw:1,0`, `plughw:…`).
    ///   - directions: capture, playback, or both on one I/O thread.
    ///   - parameters: the rate, channels and period asked for (the device may negotiate others:
    ///     `parameters(for:)`).
    ///   - ringMs: capacity of each ring between the I/O thread and the app, in milliseconds.
    ///   - policy: how faults are recovered (attempts, prefill, resume waits).
    ///   - calls: the ALSA call layer (`SystemALSA` on a machine; a scripted one in tests).
    ///   - onEvent: also told of every event, on the I/O thread: keep it short.
    /// - Throws: `ALSAError` naming the call that failed (`snd_pcm_open`,
    ///   `snd_pcm_hw_params_set_rate_near`, …, or `eventfd` for the stop waker).
    public init(device: String = "default", directions: StreamDirections = .duplex,
                parameters: StreamParameters = StreamParameters(), ringMs: Int = 1_000,
                policy: RecoveryPolicy = RecoveryPolicy(), calls: Calls,
                onEvent: (@Sendable (AudioDeviceEvent) -> Void)? = nil) throws(ALSAError) {
        guard !directions.isEmpty else { throw ALSAError(function: "ALSAStream.init", code: .invalidArgument, device: device) }
        self.device = device
        self.directions = directions
        let (events, continuation) = AsyncStream.makeStream(of: AudioDeviceEvent.self, bufferingPolicy: .bufferingNewest(256))
        self.events = events
        self.continuation = continuation
        let post: @Sendable (AudioDeviceEvent) -> Void = { event in
            continuation.yield(event)
            onEvent?(event)
        }
        let ringSamples = parameters.sampleRate * parameters.channelCount * max(ringMs, 1) / 1_000
        capture = directions.includes(.capture)
            ? try PCMChannel(calls: calls, device: device, direction: .capture, requested: parameters,
                             ringSamples: ringSamples, policy: policy, post: post)
            : nil
        playback = directions.includes(.playback)
            ? try PCMChannel(calls: calls, device: device, direction: .playback, requested: parameters,
                             ringSamples: ringSamples, policy: policy, post: post)
            : nil
        loop = PCMIOLoop(calls: calls, capture: capture, playback: playback,
                         stopWaker: try StopWaker(device: device), post: post)
        exitSignal = try StopWaker(device: device)
    }

    deinit {
        stop()
        continuation.finish()
    }

    private func channel(_ direction: AudioDirection) -> PCMChannel<Calls>? {
        direction == .capture ? capture : playback
    }

    /// What the device negotiated for `direction` (nil if not opened), from any thread: a
    /// reopen on the I/O thread may renegotiate, and this then returns the new values.
    public func parameters(for direction: AudioDirection) -> StreamParameters? {
        channel(direction)?.published.withLock { $0 }
    }

    /// The negotiated parameters of the first direction opened, from any thread.
    public var parameters: StreamParameters { (capture ?? playback)!.published.withLock { $0 } }

    /// Starts the PCMs and, unless `thread` is `.none`, the I/O thread. Later calls do nothing.
    ///
    /// - Parameters:
    ///   - thread: the I/O thread to run (real-time by default), or `.none` to drive the stream
    ///     by calling `runOnce`.
    ///   - onCycle: called on the I/O thread (or in `runOnce` with `.none`) once per
    ///   wake-up, also when the wait timed out: after the capture PCM was served (the periods
    ///   it captured are in the ring: `capturedSamplesAvailable`, `read(into:)`) and before the
    ///   playback PCM is served (what it queues with `write(_:)` goes to the device in the same
    ///   wake-up, adding no period of latency). A capture-only stream calls it after capture, a
    ///   playback-only one before playback. A joint restart (`restartCount`) caused by capture
    ///   is done before the callback of its wake-up; one caused by playback after it, so the
    ///   next callback sees it. It runs under the real-time rules: no allocation, lock,
    ///   syscall or Swift concurrency, and it never calls `stop()`. The stream keeps it until
    ///   `stop()`, which releases it (so a callback that captures the stream does not keep it
    ///   alive after `stop()`; without `stop()` that cycle is never released).
    public func start(thread: IOThreadMode = .realtime(priority: 10),
                      onCycle: (@Sendable () -> Void)? = nil) throws(AudioDeviceError) {
        let alreadyStarted = state.withLock { state -> Bool in
            defer { state.started = true }
            return state.started
        }
        guard !alreadyStarted else { return }
        loop.onCycle = onCycle
        do throws(ALSAError) {
            try loop.startAll()
        } catch {
            throw AudioDeviceError(error)
        }
        guard thread != .none else { return }
        let loop = self.loop, exitSignal = self.exitSignal
        let timeoutMs = Int32(max(20, min(200, Int(parameters.periodMs * 4))))
        loop.running.store(true, ordering: .releasing)
        let spawned = JoinableThread.spawn {
            if case let .realtime(priority) = thread {
                let refusal = IOThread.makeCurrentRealtime(priority: priority)
                loop.realtime.store(refusal == 0, ordering: .relaxed)
                loop.realtimeRefusal.store(refusal, ordering: .relaxed)
            }
            while loop.running.load(ordering: .acquiring) {
                if !loop.runOnce(timeoutMs: timeoutMs) { break }
            }
            loop.finished.store(true, ordering: .releasing)
            exitSignal.signal()
        }
        guard let spawned else {
            loop.running.store(false, ordering: .releasing)
            throw AudioDeviceError(operation: "pthread_create", code: .resourceTemporarilyUnavailable, device: device)
        }
        state.withLock { $0.thread = spawned }
    }

    /// Stops the I/O thread and closes the PCMs. Idempotent.
    ///
    /// The stop waker (the last descriptor of the loop's `poll`) ends the thread's wait at
    /// once; `stop()` then joins the thread with a 2 s deadline. A thread still inside ALSA by
    /// then is detached and keeps the PCMs (closing them under it would be worse than leaking
    /// them) and the cycle callback.
    public func stop() {
        // Under the lock from start to end, so a second caller waits for the first to finish
        // rather than closing the PCMs under a thread that is still being joined.
        state.withLock { state in
            loop.running.store(false, ordering: .releasing)
            loop.stopWaker.signal()
            if let thread = state.thread {
                state.thread = nil
                guard exitSignal.wait(timeoutMilliseconds: Self.stopTimeoutMilliseconds) else {
                    thread.detach()  // stuck inside ALSA or the callback: leave it what it uses
                    state.detached = true
                    return
                }
                thread.join()
                _ = loop.finished.load(ordering: .acquiring)
            }
            guard !state.detached else { return }
            loop.onCycle = nil
            capture?.close()
            playback?.close()
        }
    }

    /// Drives the I/O loop once on the calling thread (for `IOThreadMode.none`): one `poll`
    /// of at most `timeoutMs`, then the transfers. Returns false once every PCM is lost.
    /// Only for a stream started with `thread: .none` (or not started): while the I/O thread
    /// runs the loop, a second driver would race it on every PCM and ring, so that misuse
    /// stops the program here with a message instead of corrupting audio.
    @discardableResult
    public func runOnce(timeoutMs: Int32 = 0) -> Bool {
        precondition(!loop.running.load(ordering: .acquiring),
                     "ALSAStream.runOnce: this stream's I/O thread drives it; runOnce is for streams started with thread: .none")
        return loop.runOnce(timeoutMs: timeoutMs)
    }

    /// Moves captured interleaved samples into `buffer`; returns how many. One reader thread.
    @discardableResult
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        capture?.ring.read(into: buffer) ?? 0
    }

    /// Captured samples ready, up to `maximumCount`, as an array.
    public func read(maximumCount: Int = .max) -> [Int16] {
        capture?.ring.read(maximumCount: maximumCount) ?? []
    }

    /// Queues interleaved samples to play; returns how many fit. One writer thread.
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int {
        playback?.ring.write(samples) ?? 0
    }

    /// Queues an array of interleaved samples to play; returns how many fit.
    @discardableResult
    public func write(_ samples: [Int16]) -> Int {
        samples.withUnsafeBufferPointer { write($0) }
    }

    /// Captured samples waiting in the ring.
    public var capturedSamplesAvailable: Int { capture?.ring.availableToRead ?? 0 }

    /// Room in the playback ring, in samples.
    public var playbackSpaceAvailable: Int { playback?.ring.availableToWrite ?? 0 }

    /// Samples queued in the playback ring, not yet handed to the device (the device's own
    /// queue is `delayFrames(.playback)`).
    public var playbackQueuedSamples: Int { playback?.ring.availableToRead ?? 0 }

    /// Times a duplex stream restarted capture and playback together after an xrun or suspend
    /// (`.restarted`). One atomic load: compare it on every cycle to notice a restart on the
    /// I/O thread itself (the capture-to-playback alignment is reset then).
    public var restartCount: Int { loop.restarts.load(ordering: .acquiring) }

    /// Counters for `direction` (all zero if not opened).
    public func statistics(_ direction: AudioDirection) -> StreamStatistics {
        channel(direction)?.counters.snapshot ?? StreamStatistics()
    }

    /// `snd_pcm_delay` after the last transfer, in frames (the echo canceller's alignment).
    public func delayFrames(_ direction: AudioDirection) -> Int {
        channel(direction)?.counters.delayFrames.load(ordering: .relaxed) ?? 0
    }

    /// `snd_pcm_htimestamp` of the last transfer, CLOCK_MONOTONIC nanoseconds.
    public func timestampNanoseconds(_ direction: AudioDirection) -> Int64 {
        channel(direction)?.counters.timestampNanoseconds.load(ordering: .relaxed) ?? 0
    }

    /// Whether the I/O thread runs under SCHED_FIFO.
    public var isRealtime: Bool { loop.realtime.load(ordering: .relaxed) }

    /// Why SCHED_FIFO was refused (e.g. `.notPermitted`); nil when it was granted or not asked for.
    public var realtimeRefusal: Errno? {
        let code = loop.realtimeRefusal.load(ordering: .relaxed)
        return code == 0 ? nil : Errno(rawValue: code)
    }

    /// Whether every opened direction has lost its device.
    public var isLost: Bool {
        (capture?.counters.isLost.load(ordering: .acquiring) ?? true)
            && (playback?.counters.isLost.load(ordering: .acquiring) ?? true)
    }

    /// The longest stall `stall(milliseconds:)` applies, in milliseconds (10 s: any stall
    /// longer than the device buffer already forces the xrun it is for).
    public static var maximumStallMilliseconds: Int { 10_000 }

    /// Makes the I/O thread sleep `milliseconds` before its next wait: a diagnostic that forces
    /// xruns on purpose. The request is clamped to 0…`maximumStallMilliseconds` (0 cancels a
    /// pending stall); returns the stall that will be applied.
    @discardableResult
    public func stall(milliseconds: Int) -> Int {
        let applied = min(max(milliseconds, 0), Self.maximumStallMilliseconds)
        loop.stallMilliseconds.store(applied, ordering: .relaxed)
        return applied
    }
}

extension ALSAStream where Calls == SystemALSA {
    /// Opens a real ALSA PCM.
    public convenience init(device: String = "default", directions: StreamDirections = .duplex,
                            parameters: StreamParameters = StreamParameters(), ringMs: Int = 1_000,
                            policy: RecoveryPolicy = RecoveryPolicy(),
                            onEvent: (@Sendable (AudioDeviceEvent) -> Void)? = nil) throws(ALSAError) {
        try self.init(device: device, directions: directions, parameters: parameters, ringMs: ringMs,
                      policy: policy, calls: SystemALSA(), onEvent: onEvent)
    }
}
