// SPDX-License-Identifier: Apache-2.0
/// How much of each call a `CallMixer` renders at a time, and so the lattice its jitter buffers
/// decode on (`AdaptiveJitterBuffer.nextSamples`): a packet is decoded only when the audio
/// queued runs short of what the device asks for.
public enum PlayoutTick: Sendable, Equatable {
    /// A whole frame whenever the device needs more: a packet waits for the next frame boundary
    /// of the receiver's clock, and the frame's second period waits in the playback adapter.
    case frame
    /// What the device period needs, in 2.5 ms steps: a packet is played up to a period sooner.
    /// The default: on a steady link a 20 ms call on 10 ms periods is 10–20 ms sooner
    /// mouth-to-ear, and on impaired links the jitter buffer widens its margin band with the
    /// target (`benchmarks listening --arrivals-at-ticks --tick-ms 10` against frame ticks:
    /// the same mean PESQ over the 13 networks; docs/performance.md, "Played a device period at
    /// a time").
    case devicePeriod
}
