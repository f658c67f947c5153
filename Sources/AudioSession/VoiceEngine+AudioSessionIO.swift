// SPDX-License-Identifier: Apache-2.0
import AudioProcessing
import MediaEngine

/// A `VoiceEngine` is a session's I/O: activation starts its device I/O through the engine's
/// package entry points, which work even with `requiresAudioSession` (set it, so that nothing
/// but a session starts it).
extension VoiceEngine: AudioSessionIO {
    /// The engine plays.
    public var plays: Bool { true }
    /// The engine records (it opens its device duplex).
    public var records: Bool { true }
    /// Whether device I/O runs.
    public var isRunningIO: Bool { isRunning }

    /// Sets the mode's processing (device I/O is stopped), then starts device I/O at the
    /// preferred rate and period; the actual values come from the opened device.
    public func startIO(processing: ProcessingConfiguration, preferences: AudioSession.Preferences) throws(AudioSessionError) -> AudioSession.Hardware {
        do {
            try setProcessing(processing)
            let periodMs = preferences.ioBufferDuration.map { max(1, Int(($0 * 1_000).rounded())) }
            try startForSession(sampleRate: preferences.sampleRate.map { Int($0.rounded()) }, periodMs: periodMs)
        } catch {
            throw Self.sessionError(error)
        }
        guard let parameters = deviceParameters else { throw .cannotStartPlaying(reason: "device I/O stopped as it started") }
        return AudioSession.Hardware(sampleRate: Double(parameters.sampleRate), ioBufferDuration: parameters.periodMs / 1_000,
                                     inputNumberOfChannels: parameters.channelCount, outputNumberOfChannels: parameters.channelCount)
    }

    /// Stops device I/O: the audio thread is joined and what it left queued applied.
    public func stopIO() {
        stopForSession()
    }

    /// Reports a lost device once the engine has stopped for it for good (with
    /// `DeviceLossPolicy.switchTo`, only when the fallback failed too).
    public func setDeviceLossHandler(_ handler: (@Sendable () -> Void)?) {
        guard let handler else { return setSessionObserver(nil) }
        let fallback: String? = if case let .switchTo(opener) = configuration.onDeviceLoss { opener.name } else { nil }
        setSessionObserver { event in
            guard case let .audioStopped(device, lost: true) = event else { return }
            if let fallback, device != fallback { return }
            handler()
        }
    }

    /// Opens and closes the engine's device (nothing when I/O runs): nil when it could start.
    public func probeDevice() -> AudioSessionError? {
        openDeviceOnce().map { Self.sessionError(.device($0)) }
    }

    /// The route's output PCM (or its input's when it has no output): the engine opens one
    /// PCM both ways, and the output is what an override or a headset chose. Nil for an
    /// empty route (a center without a device layer): the configured device stays.
    public func routeDevice(for route: AudioSession.RouteDescription) -> String? {
        route.outputs.first?.uid ?? route.inputs.first?.uid
    }

    /// Points the next start at PCM `name` of the engine's ALSA layer.
    public func useDevice(named name: String) throws(AudioSessionError) {
        do {
            try setDevice(named: name)
        } catch {
            throw Self.sessionError(error)
        }
    }

    static func sessionError(_ error: VoiceEngineError) -> AudioSessionError {
        switch error {
        case .audioRunning: .isBusy(reason: "the engine's device I/O was started outside the session")
        case let .device(error) where error.code == .resourceBusy: .deviceBusy(device: error.device)
        case let .device(error) where error.code == .connectionRefused: .mediaServicesLost(reason: "\(error)")
        case let .device(error): .cannotStartPlaying(reason: "\(error)")
        case .shutDown: .mediaServicesFailed(reason: "the engine was shut down")
        default: .resourceNotAvailable(reason: "\(error)")
        }
    }
}
