// SPDX-License-Identifier: Apache-2.0
extension AudioSession {
    /// What the session does with audio, as AVAudioSession's categories: whether it plays,
    /// records, mixes with others and which options and modes it takes.
    public enum Category: String, Sendable, CaseIterable, CustomStringConvertible {
        /// Plays, mixes with others (mixWithOthers implied), silenced by the ring/silent switch.
        case ambient
        /// Plays, does not mix: the default.
        case soloAmbient
        /// Plays; mixes only with mixWithOthers.
        case playback
        /// Records only.
        case record
        /// Plays and records: calls.
        case playAndRecord
        /// Several routes at once.
        case multiRoute

        /// Whether sessions of this category play audio.
        public var plays: Bool { self != .record }
        /// Whether sessions of this category record audio.
        public var records: Bool { self == .record || self == .playAndRecord || self == .multiRoute }

        public var description: String { rawValue }
    }
}
