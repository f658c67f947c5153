// SPDX-License-Identifier: Apache-2.0
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

/// The demo's virtual phones hear their own loudspeaker through it.
extension DemoEchoPath: VirtualAcousticPath {
    func loudspeakerPlayed(_ samples: UnsafeBufferPointer<Int16>) { play(samples) }
    func microphoneCaptured(_ samples: UnsafeMutableBufferPointer<Int16>) { addEcho(into: samples) }
}
