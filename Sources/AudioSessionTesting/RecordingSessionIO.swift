// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import AudioSession
import Locking

/// A stand-in for device I/O under an audio session (an engine's, a ringer's), for tests: it
/// records what the session asked (starts, stops, the processing), runs or not, can refuse
/// its next start or answer a device probe with an error, and loses its device on demand (as
/// an engine does: I/O stops first, then the loss is reported).
public final class RecordingSessionIO: AudioSessionIO {
    /// What it saw and what it will do.
    public struct State: Sendable {
        /// Whether I/O runs.
        public var running = false
        /// Starts and stops so far (a stop of stopped I/O is not counted).
        public var starts = 0
        public var stops = 0
        /// The processing of the last start.
        public var processing: ProcessingConfiguration?
        /// The session's device-loss handler.
        public var lossHandler: (@Sendable () -> Void)?
        /// Thrown by the next start (then cleared).
        public var failNextStart: AudioSessionError?
        /// What `probeDevice` answers (nil: the device would start).
        public var probe: AudioSessionError?
    }

    /// Whether the I/O plays and records (what the session checks against its category).
    public let plays: Bool
    public let records: Bool
    /// The state, for tests to read and script.
    public let state = Locked(State())

    /// I/O that plays and records unless told otherwise.
    public init(plays: Bool = true, records: Bool = true) {
        self.plays = plays
        self.records = records
    }

    /// Whether I/O runs.
    public var isRunningIO: Bool { state.withLock { $0.running } }
    /// Starts so far.
    public var starts: Int { state.withLock { $0.starts } }

    /// Starts (or throws the scripted failure), with the preferred rate and buffer duration read back.
    public func startIO(processing: ProcessingConfiguration, preferences: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware {
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

    /// Stops.
    public func stopIO() {
        state.withLock { state in
            if state.running { state.stops += 1 }
            state.running = false
        }
    }

    /// Keeps the session's device-loss handler.
    public func setDeviceLossHandler(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.lossHandler = handler }
    }

    /// The scripted probe answer.
    public func probeDevice() -> AudioSessionError? { state.withLock { $0.probe } }

    /// The device goes away: I/O stops by itself and the handler hears of it.
    public func loseDevice() {
        let handler = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.running else { return nil }
            state.running = false
            return state.lossHandler
        }
        handler?()
    }
}
