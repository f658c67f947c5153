// SPDX-License-Identifier: Apache-2.0
/// How much of each call a `CallMixer` renders at a time, and so the lattice its jitter buffers
/// decode on (`AdaptiveJitterBuffer.nextSamples`): a packet is decoded only when the audio
/// queued runs short of what the device asks for.
public enum PlayoutTick: Sendable, Equatable {
    /// A whole frame whenever the device needs more: a packet waits for the next frame boundary
    /// of the receiver's clock. The default: on an impaired link that wait is margin the target
    /// delay does not yet ask for and the listener hears the difference (docs/performance.md,
    /// Listening, the engine model).
    case frame
    /// What the device period needs, in 2.5 ms steps: a packet is played up to a period sooner
    /// (on a steady link, a 20 ms call on 10 ms periods is 16 ms sooner mouth-to-ear).
    case devicePeriod
}
