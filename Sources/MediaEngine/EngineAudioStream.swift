import AudioDevices
import SystemErrors

/// What `VoiceEngine` needs of an audio device stream: `ALSAStream` over any `ALSACalls`
/// (real ALSA, a virtual device, a test double). The engine's audio thread is the stream's
/// I/O thread: `onCycle` runs on it after each wake-up, between capture and playback.
protocol EngineAudioStream: AnyObject, Sendable {
    func start(thread: IOThreadMode, onCycle: (@Sendable () -> Void)?) throws(ALSAError)
    func stop()
    @discardableResult func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int
    @discardableResult func write(_ samples: UnsafeBufferPointer<Int16>) -> Int
    var playbackSpaceAvailable: Int { get }
    var playbackQueuedSamples: Int { get }
    func parameters(for direction: AudioDirection) -> StreamParameters?
    func statistics(_ direction: AudioDirection) -> StreamStatistics
    func delayFrames(_ direction: AudioDirection) -> Int
    var isRealtime: Bool { get }
    var realtimeRefusal: Errno? { get }
    var restartCount: Int { get }
    var isLost: Bool { get }
    @discardableResult func stall(milliseconds: Int) -> Int
}

extension ALSAStream: EngineAudioStream {}
