// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Locking
import Synchronization
import SystemErrors

/// A stream of a `VirtualAudioDevice` at the level of one period: what an engine drives when it
/// opens the device through its backend (`AudioDeviceBackend`), with no ALSA in between.
///
/// Its thread waits for the device's next period by the device's pacing (real time, the
/// virtual clock, or none), moves the period captured into the capture ring, runs the
/// engine's cycle, and hands the device one period from the playback ring (silence where the
/// ring ran dry, counted). Playback is prefilled with `RecoveryPolicy.playbackPrefillPeriods`
/// of silence before the start, the device's lead, as a sound card's buffer would hold it.
/// A virtual device never fails: there are no xruns, restarts or losses to report.
///
/// The per-period path allocates nothing and takes only the device's own lock.
public final class VirtualAudioStream: AudioDeviceStream, @unchecked Sendable {
    // @unchecked: `onCycle` and `thread` are set before the thread starts and cleared after it
    // was joined; everything the thread and the engine share is a ring or an atomic.

    /// The device served.
    public let device: VirtualAudioDevice
    /// The name the stream was opened under.
    public let name: String
    private let capture: Direction?
    private let playback: Direction?
    private let prefillPeriods: Int
    private let stopWaker: StopWaker
    private let running = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let realtime = Atomic<Bool>(false)
    private let refusal = Atomic<Int32>(0)
    private let stallMilliseconds = Atomic<Int>(0)
    private var thread: JoinableThread?
    private var onCycle: (@Sendable () -> Void)?

    /// One direction: the device's PCM, its ring and scratch period, its counters.
    private final class Direction: @unchecked Sendable {
        let pcm: PCMHandle
        let parameters: StreamParameters
        let ring: SampleRing
        let scratch: UnsafeMutableBufferPointer<Int16>
        let counters = StreamCounters()

        init(pcm: PCMHandle, parameters: StreamParameters, ringMs: Int) {
            self.pcm = pcm
            self.parameters = parameters
            scratch = .allocate(capacity: parameters.periodSamples)
            scratch.initialize(repeating: 0)
            let ringSamples = parameters.sampleRate * parameters.channelCount * ringMs / 1_000
            ring = SampleRing(minimumCapacity: max(ringSamples, 4 * parameters.periodSamples))
        }

        deinit { scratch.deallocate() }
    }

    /// The longest stall `stall(milliseconds:)` applies (as `ALSAStream`'s).
    public static var maximumStallMilliseconds: Int { ALSAStream<VirtualAudioDevice>.maximumStallMilliseconds }

    /// Opens `directions` of `device` with `parameters` (the device takes any positive rate,
    /// channel count and period), rings of `ringMs` each, `prefillPeriods` of silence ahead of
    /// playback (at least one).
    ///
    /// - Throws: `AudioDeviceError` for an empty direction set or parameters the device refuses
    ///   (`configure`), or when no stop waker can be made (`eventfd`).
    public init(device: VirtualAudioDevice, name: String, directions: StreamDirections = .duplex,
                parameters: StreamParameters = StreamParameters(), ringMs: Int = 200,
                prefillPeriods: Int = 2) throws(AudioDeviceError) {
        guard !directions.isEmpty else { throw AudioDeviceError(operation: "open", code: .invalidArgument, device: name) }
        self.device = device
        self.name = name
        self.prefillPeriods = max(prefillPeriods, 1)
        do throws(ALSAError) {
            stopWaker = try StopWaker(device: name)
        } catch {
            throw AudioDeviceError(error)
        }
        let ringMs = min(max(ringMs, 1), 10_000)
        capture = directions.includes(.capture)
            ? try Self.open(device, name: name, direction: .capture, parameters: parameters, ringMs: ringMs) : nil
        do throws(AudioDeviceError) {
            playback = directions.includes(.playback)
                ? try Self.open(device, name: name, direction: .playback, parameters: parameters, ringMs: ringMs) : nil
        } catch {
            if let capture { device.close(capture.pcm) }
            throw error
        }
    }

    private static func open(_ device: VirtualAudioDevice, name: String, direction: AudioDirection, parameters: StreamParameters,
                             ringMs: Int) throws(AudioDeviceError) -> Direction {
        let opened = device.open(device: name, direction: direction)
        guard let pcm = opened.pcm else { throw AudioDeviceError(operation: "open", code: .noSuchDevice, device: name) }
        var negotiated = parameters
        let configured = device.configure(pcm, &negotiated)
        guard configured.code >= 0 else {
            device.close(pcm)
            throw AudioDeviceError(operation: "configure", code: Errno(negatedReturnValue: configured.code), device: name,
                                   detail: "the virtual device takes a positive rate, channel count and period (\(parameters))")
        }
        return Direction(pcm: pcm, parameters: negotiated, ringMs: ringMs)
    }

    deinit { stop() }

    // MARK: Running

    public func start(thread mode: IOThreadMode, onCycle: (@Sendable () -> Void)?) throws(AudioDeviceError) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing), !stopped.load(ordering: .acquiring) else { return }
        self.onCycle = onCycle
        if let playback {
            playback.scratch.update(repeating: 0)
            for _ in 0..<prefillPeriods {
                let written = device.write(playback.pcm, from: playback.scratch.baseAddress!, frames: playback.parameters.periodFrames)
                playback.counters.frames.wrappingAdd(written, ordering: .relaxed)
            }
        }
        // Back to back: one clock for a duplex pair, as a sound card starts its PCMs.
        if let capture { _ = device.start(capture.pcm) }
        if let playback { _ = device.start(playback.pcm) }
        guard mode != .none else { return }
        running.store(true, ordering: .releasing)
        let spawned = JoinableThread.spawn { [self] in
            if case let .realtime(priority) = mode {
                let code = IOThread.makeCurrentRealtime(priority: priority)
                realtime.store(code == 0, ordering: .relaxed)
                refusal.store(code, ordering: .relaxed)
            }
            let timeoutMs = Int32(max(20, min(200, Int((capture ?? playback)!.parameters.periodMs * 4))))
            while running.load(ordering: .acquiring) { runOnce(timeoutMs: timeoutMs) }
        }
        guard let spawned else {
            running.store(false, ordering: .releasing)
            throw AudioDeviceError(operation: "pthread_create", code: .resourceTemporarilyUnavailable, device: name)
        }
        thread = spawned
    }

    /// One wake-up: waits for the device's next period (by its pacing, at most `timeoutMs` in
    /// real time), moves what capture clocked into the capture ring, runs the cycle, hands
    /// playback what is due. The stream's thread runs it in a loop; a stream started with
    /// `thread: .none` is driven by calling it (never while a thread runs it).
    public func runOnce(timeoutMs: Int32 = 0) {
        let stall = stallMilliseconds.exchange(0, ordering: .relaxed)
        if stall > 0 { device.sleep(microseconds: UInt32(min(stall, Self.maximumStallMilliseconds)) * 1_000) }
        _ = device.awaitPeriods(timeoutMs: timeoutMs, waker: stopWaker.fileDescriptor)
        if let capture { serveCapture(capture) }
        onCycle?()
        if let playback { servePlayback(playback) }
    }

    private func serveCapture(_ direction: Direction) {
        let frames = direction.parameters.periodFrames
        // A late wake-up finds several periods: take them all (as ALSA's loop does).
        for _ in 0..<8 {
            let count = device.read(direction.pcm, into: direction.scratch.baseAddress!, frames: frames)
            guard count > 0 else { break }
            let samples = count * direction.parameters.channelCount
            let written = direction.ring.write(UnsafeBufferPointer(rebasing: direction.scratch[..<samples]))
            if written < samples { direction.counters.ringOverflowSamples.wrappingAdd(samples - written, ordering: .relaxed) }
            direction.counters.frames.wrappingAdd(count, ordering: .relaxed)
        }
        note(direction)
    }

    private func servePlayback(_ direction: Direction) {
        let frames = direction.parameters.periodFrames, samples = direction.parameters.periodSamples
        for _ in 0..<8 {
            guard device.availableFrames(direction.pcm) >= frames else { break }
            let got = direction.ring.read(into: direction.scratch)
            if got < samples {
                UnsafeMutableBufferPointer(rebasing: direction.scratch[got...]).update(repeating: 0)
                direction.counters.ringUnderflowSamples.wrappingAdd(samples - got, ordering: .relaxed)
            }
            let count = device.write(direction.pcm, from: direction.scratch.baseAddress!, frames: frames)
            direction.counters.frames.wrappingAdd(count, ordering: .relaxed)
        }
        note(direction)
    }

    /// The device's delay and clock after a transfer, for the engine's echo alignment.
    private func note(_ direction: Direction) {
        direction.counters.delayFrames.store(device.delay(direction.pcm).frames, ordering: .relaxed)
        direction.counters.timestampNanoseconds.store(device.timestamp(direction.pcm).nanoseconds, ordering: .relaxed)
        direction.counters.lastTransferNanoseconds.store(MonotonicClock.nanoseconds, ordering: .releasing)
    }

    /// Stops the thread (its wait ends at once) and closes the device's PCMs. Idempotent.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        running.store(false, ordering: .releasing)
        stopWaker.signal()
        thread?.join()
        thread = nil
        onCycle = nil
        for direction in [capture, playback] {
            guard let direction else { continue }
            _ = device.drop(direction.pcm)
            device.close(direction.pcm)
        }
    }

    // MARK: AudioDeviceStream

    private func direction(_ direction: AudioDirection) -> Direction? { direction == .capture ? capture : playback }

    @discardableResult
    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int { capture?.ring.read(into: buffer) ?? 0 }
    @discardableResult
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int { playback?.ring.write(samples) ?? 0 }
    public var playbackSpaceAvailable: Int { playback?.ring.availableToWrite ?? 0 }
    public var playbackQueuedSamples: Int { playback?.ring.availableToRead ?? 0 }
    /// Captured samples waiting in the capture ring.
    public var capturedSamplesAvailable: Int { capture?.ring.availableToRead ?? 0 }
    public func parameters(for direction: AudioDirection) -> StreamParameters? { self.direction(direction)?.parameters }
    public func statistics(_ direction: AudioDirection) -> StreamStatistics { self.direction(direction)?.counters.snapshot ?? StreamStatistics() }
    public func delayFrames(_ direction: AudioDirection) -> Int {
        self.direction(direction)?.counters.delayFrames.load(ordering: .relaxed) ?? 0
    }
    public var isRealtime: Bool { realtime.load(ordering: .relaxed) }
    public var realtimeRefusal: Errno? {
        let code = refusal.load(ordering: .relaxed)
        return code == 0 ? nil : Errno(rawValue: code)
    }
    public var restartCount: Int { 0 }
    public var isLost: Bool { false }

    /// Makes the thread sleep `milliseconds` (clamped to 0…`maximumStallMilliseconds`) before
    /// its next wait: on the virtual clock the clock moves on by as much. The periods missed
    /// are served at once afterwards (a virtual device has no xrun); returns the stall applied.
    @discardableResult
    public func stall(milliseconds: Int) -> Int {
        let applied = min(max(milliseconds, 0), Self.maximumStallMilliseconds)
        stallMilliseconds.store(applied, ordering: .relaxed)
        return applied
    }
}

extension VirtualAudioDevice: AudioDeviceBackend {
    /// Opens a `VirtualAudioStream` of this device: any name, the directions asked for,
    /// `policy.playbackPrefillPeriods` of silence ahead of playback. Faults cannot happen, so
    /// `onEvent` is never called.
    public func openStream(named name: String, directions: StreamDirections, parameters: StreamParameters, policy: RecoveryPolicy,
                           onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(AudioDeviceError) -> any AudioDeviceStream {
        try VirtualAudioStream(device: self, name: name, directions: directions, parameters: parameters,
                               prefillPeriods: policy.playbackPrefillPeriods)
    }
}
