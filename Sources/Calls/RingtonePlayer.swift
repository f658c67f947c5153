// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioProcessing
import AudioSession
import Locking
import MediaEngine

/// Plays a ringtone over and over on a playback device: the ringtone session's I/O
/// (`CallAudioSystem.ringer`), started when a call rings and stopped when it is answered or
/// ended. The device is any backend's (`AudioDeviceOpener`: ALSA by name, an `ALSACalls`
/// double, the engine's own backend), opened at the ringtone's own rate and channel count (use
/// a `plug` device when an ALSA card cannot take them), on its own playback-only stream —
/// never the call's device and route.
public final class RingtonePlayer: AudioSessionIO {
    /// What it plays.
    public let ringtone: Ringtone
    /// The device it plays on.
    public var device: String { opener.name }

    private let opener: AudioDeviceOpener
    private let stream = Locked<(any AudioDeviceStream)?>(nil)

    /// A player of `ringtone` on the ALSA PCM `device`.
    public convenience init(ringtone: Ringtone, device: String = "default") {
        self.init(ringtone: ringtone, device: .alsa(device))
    }

    /// A player of `ringtone` on the PCM `device` of `calls` (a `VirtualAudioDevice` in tests).
    public convenience init<Calls: ALSACalls>(ringtone: Ringtone, device: String, calls: Calls) {
        self.init(ringtone: ringtone, device: AudioDeviceOpener(name: device, calls: calls))
    }

    /// A player of `ringtone` on `device`, of any backend: `engine.configuration.device.renamed`
    /// plays it through the engine's own backend on another device of it.
    public init(ringtone: Ringtone, device: AudioDeviceOpener) {
        self.ringtone = ringtone
        opener = device
    }

    /// Opens the device playback-only and starts feeding it from the ringtone's start.
    private func open() throws(AudioDeviceError) -> any AudioDeviceStream {
        let audio = ringtone.audio
        let parameters = StreamParameters(sampleRate: audio.sampleRate, channelCount: audio.channelCount, periodMs: 20, periods: 4)
        let playback = try opener.open(.playback, parameters: parameters)
        let source = LoopingSource(samples: audio.samples)
        try playback.start(thread: .normal) { [unowned playback] in source.feed(playback) }
        return playback
    }

    /// It plays.
    public var plays: Bool { true }
    /// It does not record.
    public var records: Bool { false }
    /// Whether the ringtone plays.
    public var isRunningIO: Bool { stream.withLock { $0 != nil } }

    /// Opens the device and starts ringing from the ringtone's start.
    public func startIO(processing _: ProcessingConfiguration, preferences _: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware {
        try stream.withLock { (stream: inout (any AudioDeviceStream)?) throws(AudioSessionError) in
            if stream == nil {
                do {
                    stream = try open()
                } catch {
                    throw .cannotStartPlaying(reason: "ringtone device \(device): \(error)")
                }
            }
        }
        return AudioSession.Hardware(sampleRate: Double(ringtone.audio.sampleRate), ioBufferDuration: 0.02,
                                     inputNumberOfChannels: 0, outputNumberOfChannels: ringtone.audio.channelCount)
    }

    /// Stops ringing and closes the device.
    public func stopIO() {
        let running = stream.withLock { stream in
            defer { stream = nil }
            return stream
        }
        running?.stop()
    }

    /// A ringtone stream is not lost on its own account in a way the session must hear of.
    public func setDeviceLossHandler(_: (@Sendable () -> Void)?) {}
}

/// The ringtone's samples, fed to the playback ring from the I/O thread, from where the
/// last wake-up left off, wrapping around: no allocation, no lock.
final class LoopingSource: @unchecked Sendable {
    // @unchecked: `position` is touched by the stream's I/O thread only.
    private let samples: [Int16]
    private var position = 0

    init(samples: [Int16]) {
        self.samples = samples
    }

    func feed(_ stream: any AudioDeviceStream) {
        samples.withUnsafeBufferPointer { all in
            var space = stream.playbackSpaceAvailable
            while space > 0 {
                let count = min(space, all.count - position)
                let written = stream.write(UnsafeBufferPointer(rebasing: all[position..<(position + count)]))
                guard written > 0 else { return }
                position = (position + written) % all.count
                space -= written
            }
        }
    }
}
