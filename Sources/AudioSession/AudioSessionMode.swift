// SPDX-License-Identifier: Apache-2.0
import AudioProcessing

extension AudioSession {
    /// A specialisation of the category, as AVAudioSession's modes; it decides voice processing.
    public enum Mode: String, Sendable, CaseIterable, CustomStringConvertible {
        /// No specialisation; every category takes it.
        case `default`
        /// A voice call (playAndRecord): echo cancellation, NS, AGC and VAD; implies allowBluetoothHFP.
        case voiceChat
        /// A video call (playAndRecord): voice processing; implies allowBluetoothHFP and defaultToSpeaker.
        case videoChat
        /// Game voice chat (playAndRecord): voice processing.
        case gameChat
        /// Recording video (playAndRecord, record).
        case videoRecording
        /// Measurement (playback, record, playAndRecord): every stage off, samples bit-exact.
        case measurement
        /// Film playback (playback).
        case moviePlayback
        /// Spoken content such as podcasts (playback; unconfirmed on iOS, our choice).
        case spokenAudio
        /// Short prompts such as navigation (playback, playAndRecord; unconfirmed, our choice).
        case voicePrompt

        public var description: String { rawValue }

        /// The voice processing the session's engine runs in this mode. voiceChat, videoChat and
        /// gameChat run everything (iOS runs its voice-processing I/O unit in all three);
        /// every other mode, measurement and default included, runs nothing.
        public var processing: ProcessingConfiguration {
            switch self {
            case .voiceChat, .videoChat, .gameChat: .voiceChat
            default: .off
            }
        }
    }
}
