import AudioProcessing
import AudioSession
import Locking

/// A stand-in for device I/O (an engine's, a ringer's): records starts and stops and whether
/// it runs; can be told to refuse its next start.
final class FakeIO: AudioSessionIO {
    struct State {
        var running = false
        var starts = 0
        var stops = 0
        var failNextStart: AudioSessionError?
    }

    let plays: Bool
    let records: Bool
    let state = Locked(State())

    init(plays: Bool = true, records: Bool = true) {
        self.plays = plays
        self.records = records
    }

    var isRunningIO: Bool { state.withLock { $0.running } }
    var starts: Int { state.withLock { $0.starts } }

    func startIO(processing: ProcessingConfiguration, preferences: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware {
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            if let failure = state.failNextStart {
                state.failNextStart = nil
                throw failure
            }
            state.running = true
            state.starts += 1
        }
        return AudioSession.Hardware(sampleRate: 48_000, ioBufferDuration: 0.01, inputNumberOfChannels: 1, outputNumberOfChannels: 1)
    }

    func stopIO() {
        state.withLock { state in
            if state.running { state.stops += 1 }
            state.running = false
        }
    }

    func setDeviceLossHandler(_ handler: (@Sendable () -> Void)?) {}
}
