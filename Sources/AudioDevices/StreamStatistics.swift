// SPDX-License-Identifier: Apache-2.0
import Synchronization

/// Counters of one direction of a stream, readable at any time without stopping audio.
public struct StreamStatistics: Sendable, Equatable {
    /// Frames moved to or from the device.
    /// All zero (a backend of another kind fills in what it counts).
    public init() {}

    public var frames: Int = 0
    /// Underruns or overruns (`EPIPE`).
    public var xruns: Int = 0
    /// Suspends (`ESTRPIPE`).
    public var suspends: Int = 0
    /// Successful recoveries from xruns and suspends.
    public var recoveries: Int = 0
    /// Times the PCM was closed and reopened.
    public var reopens: Int = 0
    /// Times a duplex stream restarted both directions together after an xrun or suspend of
    /// either (the same count in both directions' statistics; see `ALSAStream.restartCount`).
    public var restarts: Int = 0
    /// Time from the last fault to the first transfer after it, in nanoseconds (0 if none).
    public var lastRecoveryNanoseconds: Int64 = 0
    /// `snd_pcm_delay` after the last transfer, in frames: for playback, frames queued before
    /// the speaker; for capture, frames captured but not yet read.
    public var delayFrames: Int = 0
    /// `snd_pcm_htimestamp` of the last transfer (CLOCK_MONOTONIC nanoseconds).
    public var timestampNanoseconds: Int64 = 0
    /// Samples lost because the ring was full (capture: nobody read; playback: never).
    public var ringOverflowSamples: Int = 0
    /// Samples of silence played because the playback ring ran dry.
    public var ringUnderflowSamples: Int = 0
    /// Whether the device was lost.
    public var isLost: Bool = false
    /// CLOCK_MONOTONIC time of the last transfer, when `frames` was reached: with the rate it
    /// maps any frame index of the stream to the time it passed the application boundary.
    public var lastTransferNanoseconds: Int64 = 0
}

/// The atomics behind `StreamStatistics`, written by the I/O thread.
package final class StreamCounters: Sendable {
    package init() {}
    package let frames = Atomic<Int>(0)
    package let xruns = Atomic<Int>(0)
    package let suspends = Atomic<Int>(0)
    package let recoveries = Atomic<Int>(0)
    package let reopens = Atomic<Int>(0)
    package let restarts = Atomic<Int>(0)
    package let lastRecoveryNanoseconds = Atomic<Int64>(0)
    package let delayFrames = Atomic<Int>(0)
    package let timestampNanoseconds = Atomic<Int64>(0)
    package let ringOverflowSamples = Atomic<Int>(0)
    package let ringUnderflowSamples = Atomic<Int>(0)
    package let isLost = Atomic<Bool>(false)
    package let lastTransferNanoseconds = Atomic<Int64>(0)

    package var snapshot: StreamStatistics {
        var result = StreamStatistics()
        result.frames = frames.load(ordering: .relaxed)
        result.xruns = xruns.load(ordering: .relaxed)
        result.suspends = suspends.load(ordering: .relaxed)
        result.recoveries = recoveries.load(ordering: .relaxed)
        result.reopens = reopens.load(ordering: .relaxed)
        result.restarts = restarts.load(ordering: .relaxed)
        result.lastRecoveryNanoseconds = lastRecoveryNanoseconds.load(ordering: .relaxed)
        result.delayFrames = delayFrames.load(ordering: .relaxed)
        result.timestampNanoseconds = timestampNanoseconds.load(ordering: .relaxed)
        result.ringOverflowSamples = ringOverflowSamples.load(ordering: .relaxed)
        result.ringUnderflowSamples = ringUnderflowSamples.load(ordering: .relaxed)
        result.isLost = isLost.load(ordering: .acquiring)
        result.lastTransferNanoseconds = lastTransferNanoseconds.load(ordering: .acquiring)
        return result
    }
}
