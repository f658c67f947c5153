// SPDX-License-Identifier: Apache-2.0
/// The room between a `VirtualAudioDevice`'s loudspeaker and its microphone: it hears every
/// period the device plays and adds what it brings back (an echo, a reflection) to every
/// period the device captures. Both are called on the thread serving the device, in the order
/// the device's clock moves, so an implementation indexed by sample count stays in step; they
/// run under the real-time rules (no allocation, no blocking: a short lock at most).
public protocol VirtualAcousticPath: Sendable {
    /// The loudspeaker played `samples` (interleaved, at the stream's rate).
    func loudspeakerPlayed(_ samples: UnsafeBufferPointer<Int16>)
    /// The microphone captured `samples` (interleaved): add what the room brings back.
    func microphoneCaptured(_ samples: UnsafeMutableBufferPointer<Int16>)
}
