// SPDX-License-Identifier: Apache-2.0
/// Which way audio flows through a PCM: in from a microphone or out to a speaker.
public enum AudioDirection: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Audio captured from the device (ALSA `SND_PCM_STREAM_CAPTURE`).
    case capture = 0
    /// Audio played to the device (ALSA `SND_PCM_STREAM_PLAYBACK`).
    case playback = 1

    public var description: String { self == .capture ? "capture" : "playback" }
}

/// The directions a stream opens: capture, playback, or both on one I/O thread (duplex).
public struct StreamDirections: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Capture only.
    public static let capture = StreamDirections(rawValue: 1)
    /// Playback only.
    public static let playback = StreamDirections(rawValue: 2)
    /// Capture and playback, served by one thread on one clock.
    public static let duplex: StreamDirections = [.capture, .playback]

    /// Whether `direction` is included.
    public func includes(_ direction: AudioDirection) -> Bool {
        contains(direction == .capture ? StreamDirections.capture : StreamDirections.playback)
    }
}
