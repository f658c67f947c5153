import AudioDevices

/// How a `VoiceEngine` opens its audio device each time device I/O starts: a real ALSA PCM by
/// name, or any `ALSACalls` implementation (AudioDevicesTesting's `VirtualAudioDevice` null or
/// WAV devices, `ScriptedALSA`, an app's own double).
public struct AudioDeviceOpener: Sendable {
    /// The device's name, as events and errors give it.
    public let name: String
    let open: @Sendable (_ parameters: StreamParameters, _ policy: RecoveryPolicy,
                         _ onEvent: @escaping @Sendable (AudioDeviceEvent) -> Void) throws(ALSAError) -> any EngineAudioStream
    /// The same ALSA layer's PCM of another name (an audio session's route moves the engine).
    let renamed: @Sendable (_ name: String) -> AudioDeviceOpener

    /// The ALSA PCM `device` ("default", "pulse", "hw:1,0", "plughw:CARD=USB,DEV=0", …),
    /// opened for capture and playback on one clock.
    public static func alsa(_ device: String = "default") -> AudioDeviceOpener {
        AudioDeviceOpener(name: device, calls: SystemALSA())
    }

    /// The PCM `name` of `calls`, opened for capture and playback.
    public init<Calls: ALSACalls>(name: String, calls: Calls) {
        self.name = name
        renamed = { AudioDeviceOpener(name: $0, calls: calls) }
        open = { (parameters, policy, onEvent) throws(ALSAError) -> any EngineAudioStream in
            // The rings are sized for 200 ms: the engine keeps one period in each.
            try ALSAStream(device: name, directions: .duplex, parameters: parameters, ringMs: 200, policy: policy,
                           calls: calls, onEvent: onEvent)
        }
    }
}
