// SPDX-License-Identifier: Apache-2.0
/// The audio files of a real call, at the engine's rate: the input read as 48 kHz mono (what
/// the engine sends, `RealCallInput`), the received audio written as 48 kHz mono
/// (`RealCallRecording`), both streamed in bounded memory. Where a recording may go is
/// `RecordingDestination`'s to say.
enum RealCallAudio {
    /// The engine's sample rate.
    static let sampleRate = 48_000
}
