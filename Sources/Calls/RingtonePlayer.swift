import AudioDevices
import AudioProcessing
import AudioSession
import Locking

/// Plays a ringtone over and over on an ALSA playback device: the ringtone session's I/O
/// (`CallAudioSystem.ringer`), started when a call rings and stopped when it is answered or
/// ended. The device is opened at the ringtone's own rate and channel count (use a `plug`
/// device when the card cannot take them), on its own playback-only stream — never the call's
/// device and route.
public final class RingtonePlayer: AudioSessionIO {
    /// What it plays.
    public let ringtone: Ringtone
    /// The ALSA device it plays on.
    public let device: String

    private let open: @Sendable () throws(ALSAError) -> any RingtoneStream
    private let stream = Locked<(any RingtoneStream)?>(nil)

    /// A player of `ringtone` on the ALSA PCM `device`.
    public convenience init(ringtone: Ringtone, device: String = "default") {
        self.init(ringtone: ringtone, device: device, calls: SystemALSA())
    }

    /// A player of `ringtone` on the PCM `device` of `calls` (a `VirtualAudioDevice` in tests).
    public init<Calls: ALSACalls>(ringtone: Ringtone, device: String, calls: Calls) {
        self.ringtone = ringtone
        self.device = device
        let audio = ringtone.audio
        open = { () throws(ALSAError) -> any RingtoneStream in
            let parameters = StreamParameters(sampleRate: audio.sampleRate, channelCount: audio.channelCount, periodMs: 20, periods: 4)
            let alsa = try ALSAStream(device: device, directions: .playback, parameters: parameters, ringMs: 200, calls: calls)
            let source = LoopingSource(samples: audio.samples)
            try alsa.start(thread: .normal) { [unowned alsa] in source.feed(alsa) }
            return alsa
        }
    }

    /// It plays.
    public var plays: Bool { true }
    /// It does not record.
    public var records: Bool { false }
    /// Whether the ringtone plays.
    public var isRunningIO: Bool { stream.withLock { $0 != nil } }

    /// Opens the device and starts ringing from the ringtone's start.
    public func startIO(processing _: ProcessingConfiguration, preferences _: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware {
        try stream.withLock { (stream: inout (any RingtoneStream)?) throws(AudioSessionError) in
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

/// A running playback stream, whatever its `ALSACalls`.
protocol RingtoneStream: Sendable {
    func stop()
}

extension ALSAStream: RingtoneStream {}

/// The ringtone's samples, fed to the playback ring from the I/O thread, from where the
/// last wake-up left off, wrapping around: no allocation, no lock.
final class LoopingSource: @unchecked Sendable {
    // @unchecked: `position` is touched by the stream's I/O thread only.
    private let samples: [Int16]
    private var position = 0

    init(samples: [Int16]) {
        self.samples = samples
    }

    func feed<Calls: ALSACalls>(_ stream: ALSAStream<Calls>) {
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
