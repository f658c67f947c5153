import AudioDevices
import AudioDevicesTesting
import Locking

/// An acoustic echo path for the demo's virtual phones: what the loudspeaker plays comes back
/// into the microphone 30 ms later 15 dB down, plus a reflection 25 ms after that 25 dB down
/// (a phone held at the ear or a laptop on a desk), so the echo canceller has an echo to
/// remove and its suppression (ERLE) in the status line means what it says. Indexed by
/// sample count: capture sample n hears played samples n − 30 ms and n − 55 ms.
final class DemoEchoPath: Sendable {
    /// Direct path: delay in samples and gain.
    static let taps: [(delay: Int, gain: Float)] = [(1_440, 0.178), (2_640, 0.056)]
    private struct State {
        var history: [Int16]
        var played = 0
        var captured = 0
    }
    private let state: Locked<State>

    init() {
        // One second of history, allocated here and never again (the I/O thread touches it).
        state = Locked(State(history: [Int16](repeating: 0, count: 48_000)))
    }

    /// The loudspeaker played `samples`.
    func play(_ samples: UnsafeBufferPointer<Int16>) {
        state.withLock { state in
            let size = state.history.count
            for sample in samples {
                state.history[state.played % size] = sample
                state.played += 1
            }
        }
    }

    /// Adds the echo to `samples` the microphone captured.
    func addEcho(into samples: UnsafeMutableBufferPointer<Int16>) {
        state.withLock { state in
            let size = state.history.count
            for index in samples.indices {
                let n = state.captured
                state.captured += 1
                var echo: Float = 0
                for tap in Self.taps {
                    let source = n - tap.delay
                    // Only what was played and is still in the history.
                    if source >= 0, source < state.played, state.played - source <= size {
                        echo += Float(state.history[source % size]) * tap.gain
                    }
                }
                samples[index] = Int16(clamping: Int(Float(samples[index]) + echo))
            }
        }
    }
}

/// A virtual device with `DemoEchoPath` between its loudspeaker and microphone: every call
/// goes to the wrapped `VirtualAudioDevice`, playback is also fed to the echo path and
/// capture gets its echo added.
struct DemoEchoDevice: ALSACalls {
    let device: VirtualAudioDevice
    let echo = DemoEchoPath()

    func open(device name: String, direction: AudioDirection) -> (pcm: PCMHandle?, code: Int32) { device.open(device: name, direction: direction) }
    func configure(_ pcm: PCMHandle, _ parameters: inout StreamParameters) -> (code: Int32, function: String) { device.configure(pcm, &parameters) }
    func close(_ pcm: PCMHandle) { device.close(pcm) }
    func prepare(_ pcm: PCMHandle) -> Int32 { device.prepare(pcm) }
    func start(_ pcm: PCMHandle) -> Int32 { device.start(pcm) }
    func drop(_ pcm: PCMHandle) -> Int32 { device.drop(pcm) }
    func recover(_ pcm: PCMHandle, error: Int32) -> Int32 { device.recover(pcm, error: error) }
    func resume(_ pcm: PCMHandle) -> Int32 { device.resume(pcm) }
    func read(_ pcm: PCMHandle, into buffer: UnsafeMutablePointer<Int16>, frames: Int) -> Int {
        let count = device.read(pcm, into: buffer, frames: frames)
        if count > 0 { echo.addEcho(into: UnsafeMutableBufferPointer(start: buffer, count: count)) }
        return count
    }
    func write(_ pcm: PCMHandle, from buffer: UnsafePointer<Int16>, frames: Int) -> Int {
        let count = device.write(pcm, from: buffer, frames: frames)
        if count > 0 { echo.play(UnsafeBufferPointer(start: buffer, count: count)) }
        return count
    }
    func availableFrames(_ pcm: PCMHandle) -> Int { device.availableFrames(pcm) }
    func delay(_ pcm: PCMHandle) -> (code: Int32, frames: Int) { device.delay(pcm) }
    func timestamp(_ pcm: PCMHandle) -> (code: Int32, nanoseconds: Int64) { device.timestamp(pcm) }
    func pollDescriptorCount(_ pcm: PCMHandle) -> Int { device.pollDescriptorCount(pcm) }
    func pollDescriptors(_ pcm: PCMHandle, into descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> Int {
        device.pollDescriptors(pcm, into: descriptors, count: count)
    }
    func pollEvents(_ pcm: PCMHandle, descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int) -> (code: Int32, events: PollEvents) {
        device.pollEvents(pcm, descriptors: descriptors, count: count)
    }
    func poll(_ descriptors: UnsafeMutablePointer<PollDescriptor>, count: Int, timeoutMs: Int32) -> Int32 {
        device.poll(descriptors, count: count, timeoutMs: timeoutMs)
    }
    func sleep(microseconds: UInt32) { device.sleep(microseconds: microseconds) }
    func cards() -> [AudioCard] { device.cards() }
    func devices() -> [AudioDeviceInfo] { device.devices() }
}
