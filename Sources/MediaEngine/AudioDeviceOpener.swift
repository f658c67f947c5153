// SPDX-License-Identifier: Apache-2.0
import AudioDevices

/// How a `VoiceEngine` opens its audio device each time device I/O starts: a device `name` of
/// a backend — a real ALSA PCM (`alsa(_:)`), any `ALSACalls` implementation
/// (AudioDevicesTesting's `VirtualAudioDevice` null or WAV devices, `ScriptedALSA`, an app's own
/// double), or any `AudioDeviceBackend` at the level of one period (a host application's
/// audio callback, another sound server).
public struct AudioDeviceOpener: Sendable {
    /// The device's name, as events and errors give it.
    public let name: String
    /// What opens it.
    public let backend: any AudioDeviceBackend

    /// The ALSA PCM `device` ("default", "pulse", "hw:1,0", "plughw:CARD=USB,DEV=0", …),
    /// opened for capture and playback on one clock.
    public static func alsa(_ device: String = "default") -> AudioDeviceOpener {
        AudioDeviceOpener(name: device, calls: SystemALSA())
    }

    /// The PCM `name` of `calls`, opened for capture and playback.
    public init<Calls: ALSACalls>(name: String, calls: Calls) {
        self.init(name: name, backend: ALSABackend(calls: calls))
    }

    /// Device `name` of `backend`.
    public init(name: String, backend: any AudioDeviceBackend) {
        self.name = name
        self.backend = backend
    }

    /// Opens the device for `directions` (the engine: duplex, each start of device I/O).
    public func open(_ directions: StreamDirections = .duplex, parameters: StreamParameters, policy: RecoveryPolicy = RecoveryPolicy(),
                     onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void = { _ in }) throws(AudioDeviceError) -> any AudioDeviceStream {
        try backend.openStream(named: name, directions: directions, parameters: parameters, policy: policy, onEvent: onEvent)
    }

    /// The same backend's device of another name (an audio session's route moves the engine).
    public func renamed(_ name: String) -> AudioDeviceOpener {
        AudioDeviceOpener(name: name, backend: backend)
    }
}
