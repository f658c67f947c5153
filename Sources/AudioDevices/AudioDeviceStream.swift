// SPDX-License-Identifier: Apache-2.0
import SystemErrors

/// A duplex audio device at the level of one period: what an engine drives, whatever the
/// device is. The stream owns the thread that serves the device and calls the engine's cycle
/// once per wake-up — after the period captured is readable, before the period to play is
/// taken — the shape of ALSA's poll loop and of PipeWire's or a host application's process
/// callback alike. `ALSAStream` is one implementation (over real ALSA or any `ALSACalls`
/// double); a backend of another kind implements this protocol and an `AudioDeviceBackend`.
///
/// `read`, `write`, the counters and `delayFrames` are called from the cycle, under the
/// real-time rules: they must not allocate, lock or block.
public protocol AudioDeviceStream: AnyObject, Sendable {
    /// Starts the device and the thread that serves it; `onCycle` runs on that thread once per
    /// wake-up (see `ALSAStream.start(thread:onCycle:)` for the contract). Later calls do nothing.
    func start(thread: IOThreadMode, onCycle: (@Sendable () -> Void)?) throws(AudioDeviceError)
    /// Stops the thread and the device; the cycle is released.
    func stop()
    /// Moves captured samples (interleaved) into `buffer`; returns how many.
    @discardableResult func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int
    /// Queues samples (interleaved) to play; returns how many fitted.
    @discardableResult func write(_ samples: UnsafeBufferPointer<Int16>) -> Int
    /// Samples `write` would take now.
    var playbackSpaceAvailable: Int { get }
    /// Samples queued to play and not yet taken by the device.
    var playbackQueuedSamples: Int { get }
    /// The negotiated parameters of `direction`, or nil when not opened.
    func parameters(for direction: AudioDirection) -> StreamParameters?
    /// Counters of `direction` (xruns, ring gaps, frames).
    func statistics(_ direction: AudioDirection) -> StreamStatistics
    /// The device's own buffering in `direction` after the last transfer, in frames (the echo
    /// canceller's alignment; 0 when unknown).
    func delayFrames(_ direction: AudioDirection) -> Int
    /// Whether the serving thread runs under a real-time policy.
    var isRealtime: Bool { get }
    /// Why a real-time policy was refused; nil when granted or not asked for.
    var realtimeRefusal: Errno? { get }
    /// Times capture and playback restarted together (the engine re-aligns its echo reference).
    var restartCount: Int { get }
    /// Whether the device is gone for good.
    var isLost: Bool { get }
    /// Makes the serving thread miss its next deadline by `milliseconds` (a diagnostic that
    /// forces an xrun); returns the stall applied, 0 for a backend that cannot stall.
    @discardableResult func stall(milliseconds: Int) -> Int
}

/// Opens `AudioDeviceStream`s by device name: ALSA (`ALSABackend`) or any other kind of device.
public protocol AudioDeviceBackend: Sendable {
    /// Opens device `name` for `directions` (duplex: capture and playback on one clock) with
    /// `parameters` (the device may negotiate others; the stream reports them), recovering by
    /// `policy` and reporting faults and recoveries to `onEvent`.
    func openStream(named name: String, directions: StreamDirections, parameters: StreamParameters, policy: RecoveryPolicy,
                    onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(AudioDeviceError) -> any AudioDeviceStream
}

extension ALSAStream: AudioDeviceStream {}

/// The ALSA backend: PCMs of `calls` (real ALSA, `SystemALSA`, or a double such as
/// AudioDevicesTesting's virtual devices), opened duplex with rings of `ringMs`.
public struct ALSABackend<Calls: ALSACalls>: AudioDeviceBackend {
    /// The ALSA call layer the streams use.
    public let calls: Calls
    /// Each ring's length in milliseconds (an engine keeps one period in each).
    public let ringMs: Int

    /// A backend over `calls`.
    public init(calls: Calls, ringMs: Int = 200) {
        self.calls = calls
        self.ringMs = ringMs
    }

    public func openStream(named name: String, directions: StreamDirections, parameters: StreamParameters, policy: RecoveryPolicy,
                           onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(AudioDeviceError) -> any AudioDeviceStream {
        do throws(ALSAError) {
            return try ALSAStream(device: name, directions: directions, parameters: parameters, ringMs: ringMs, policy: policy, calls: calls,
                                  onEvent: onEvent)
        } catch {
            throw AudioDeviceError(error)
        }
    }
}
