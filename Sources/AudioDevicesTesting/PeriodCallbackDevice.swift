// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import Locking
import SystemErrors
import Synchronization

/// A device of the period-callback kind, without ALSA or `ALSACalls`: what a host
/// application's audio callback or another sound server looks like to an engine
/// (`AudioDeviceStream`). Its own thread wakes every period on the monotonic clock, queues the
/// capture (`capture`, looped; silence when empty), runs the cycle, and records what was queued
/// to play (silence where nothing was). Mono at 48 kHz, 10 ms periods.
public final class PeriodCallbackDevice: AudioDeviceStream, @unchecked Sendable {
    // @unchecked: the rings and `played` are touched by the device thread only while it runs;
    // `recording()` is read after `stop()` joined it (or under `recordingLock`).

    /// Samples per period.
    public let period = 480
    private var thread: JoinableThread?
    private let running = Atomic<Bool>(false)
    private let captured: SampleRing
    private let queued: SampleRing
    private let scratch: UnsafeMutableBufferPointer<Int16>
    private let capture: [Int16]
    private var capturePosition = 0
    private let recorded = Locked<[Int16]>([])
    private let recordingCapacity: Int
    private let cycles = Atomic<Int>(0)
    private let starts = Atomic<Int>(0)

    /// A device capturing `capture` (looped) and recording up to `recordingSeconds` of playback.
    public init(capture: [Int16] = [], recordingSeconds: Int = 30) {
        self.capture = capture
        captured = SampleRing(minimumCapacity: 8 * period)
        queued = SampleRing(minimumCapacity: 8 * period)
        scratch = .allocate(capacity: period)
        scratch.initialize(repeating: 0)
        recordingCapacity = recordingSeconds * 48_000
        recorded.withLock { $0.reserveCapacity(recordingCapacity) }
    }

    deinit { scratch.deallocate() }

    /// Periods served so far.
    public var periods: Int { cycles.load(ordering: .relaxed) }
    /// Times it was started.
    public var startCount: Int { starts.load(ordering: .relaxed) }
    /// What it played so far.
    public func recording() -> [Int16] { recorded.withLock { $0 } }

    public func start(thread mode: IOThreadMode, onCycle: (@Sendable () -> Void)?) throws(AudioDeviceError) {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        starts.add(1, ordering: .relaxed)
        thread = JoinableThread.spawn { [self] in
            var deadline = MonotonicClock.nanoseconds
            while running.load(ordering: .acquiring) {
                deadline += 10_000_000
                MonotonicClock.sleep(untilNanoseconds: deadline)
                captureOnePeriod()
                onCycle?()
                let count = queued.read(into: scratch)
                if count < period { UnsafeMutableBufferPointer(rebasing: scratch[count..<period]).update(repeating: 0) }
                // A test double: its recording may lock (the engine's cycle has returned).
                recorded.withLock { recording in
                    if recording.count + period <= recordingCapacity { recording.append(contentsOf: scratch) }
                }
                cycles.add(1, ordering: .relaxed)
            }
        }
    }

    private func captureOnePeriod() {
        guard !capture.isEmpty else {
            scratch.update(repeating: 0)
            _ = captured.write(UnsafeBufferPointer(scratch))
            return
        }
        for index in 0..<period {
            scratch[index] = capture[capturePosition]
            capturePosition = (capturePosition + 1) % capture.count
        }
        _ = captured.write(UnsafeBufferPointer(scratch))
    }

    public func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        thread?.join()
        thread = nil
    }

    public func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int { captured.read(into: buffer) }
    public func write(_ samples: UnsafeBufferPointer<Int16>) -> Int { queued.write(samples) }
    public var playbackSpaceAvailable: Int { queued.availableToWrite }
    public var playbackQueuedSamples: Int { queued.availableToRead }
    public func parameters(for direction: AudioDirection) -> StreamParameters? {
        StreamParameters(sampleRate: 48_000, channelCount: 1, periodMs: 10, periods: 2)
    }
    public func statistics(_ direction: AudioDirection) -> StreamStatistics {
        var statistics = StreamStatistics()
        statistics.frames = periods * period
        return statistics
    }
    public func delayFrames(_ direction: AudioDirection) -> Int { 0 }
    public var isRealtime: Bool { false }
    public var realtimeRefusal: Errno? { nil }
    public var restartCount: Int { 0 }
    public var isLost: Bool { false }
    public func stall(milliseconds: Int) -> Int { 0 }
}

/// Opens its one `PeriodCallbackDevice` under any name and for any directions (counted).
public struct PeriodCallbackBackend: AudioDeviceBackend {
    /// The device every open returns.
    public let device: PeriodCallbackDevice
    private let opens = Counter()
    private final class Counter: Sendable { let count = Atomic<Int>(0) }

    /// A backend over `device`.
    public init(device: PeriodCallbackDevice) { self.device = device }

    /// Times a stream was opened.
    public var openCount: Int { opens.count.load(ordering: .relaxed) }

    public func openStream(named name: String, directions: StreamDirections, parameters: StreamParameters, policy: RecoveryPolicy,
                           onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(AudioDeviceError) -> any AudioDeviceStream {
        opens.count.add(1, ordering: .relaxed)
        return device
    }
}
