import AudioProcessing
@testable import AudioSession
import Locking

/// A stand-in for an engine's device I/O: records what the session asked, runs or not, and
/// loses its device on demand (as the engine does: I/O stops, then the loss is reported).
final class RecordingIO: AudioSessionIO {
    struct State {
        var running = false
        var starts = 0
        var stops = 0
        var processing: ProcessingConfiguration?
        var lossHandler: (@Sendable () -> Void)?
        var failNextStart: AudioSessionError?
        /// What `probeDevice` answers (nil: the device would start).
        var probe: AudioSessionError?
    }

    let plays: Bool
    let records: Bool
    let state = Locked(State())

    init(plays: Bool = true, records: Bool = true) {
        self.plays = plays
        self.records = records
    }

    var isRunningIO: Bool { state.withLock { $0.running } }

    func startIO(processing: ProcessingConfiguration, preferences: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware {
        try state.withLock { (state: inout State) throws(AudioSessionError) in
            if let failure = state.failNextStart {
                state.failNextStart = nil
                throw failure
            }
            state.running = true
            state.starts += 1
            state.processing = processing
        }
        return AudioSession.Hardware(sampleRate: preferences.sampleRate ?? 48_000, ioBufferDuration: preferences.ioBufferDuration ?? 0.01,
                                     inputNumberOfChannels: 1, outputNumberOfChannels: 1)
    }

    func stopIO() {
        state.withLock { state in
            if state.running { state.stops += 1 }
            state.running = false
        }
    }

    func setDeviceLossHandler(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.lossHandler = handler }
    }

    func probeDevice() -> AudioSessionError? { state.withLock { $0.probe } }

    /// The device goes away: I/O stops by itself and the handler hears of it.
    func loseDevice() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.running else { return nil }
            state.running = false
            return state.lossHandler
        }
        handler?()
    }
}
