// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import SystemErrors

/// What an `AudioSessionCenter` asks of the system's audio: the device list its routes come
/// from, and whether the sound server (the media services) answers. Injectable, so tests
/// script both (`ScriptedALSA`), as `DeviceChangeMonitor` takes any `ALSACalls`.
public struct AudioSessionDeviceLayer: Sendable {
    /// Every PCM present now.
    public let devices: @Sendable () -> [AudioDeviceInfo]
    /// Nil while the media services answer, else why they do not.
    public let servicesFailure: @Sendable () -> String?

    /// A layer of two closures.
    public init(devices: @escaping @Sendable () -> [AudioDeviceInfo], servicesFailure: @escaping @Sendable () -> String? = { nil }) {
        self.devices = devices
        self.servicesFailure = servicesFailure
    }

    /// No devices, services always up: routes are empty and only the engines' own failures
    /// tell of lost media services (what `AudioSessionCenter()` uses).
    public static let none = AudioSessionDeviceLayer(devices: { [] })

    /// `calls`'s device list (`AudioDeviceList.current(calls:)`); the media services are down
    /// while `server`, a PCM reached through the sound server (`pulse`), cannot be opened for
    /// playback because the connection is refused (ECONNREFUSED: no daemon on its socket). Nil `server`: a system
    /// without a sound server, whose services never go down by themselves.
    public init<Calls: ALSACalls>(calls: Calls, server: String?) {
        devices = { AudioDeviceList.current(calls: calls) }
        servicesFailure = {
            guard let server else { return nil }
            let opened = calls.open(device: server, direction: .playback)
            if let pcm = opened.pcm, opened.code >= 0 {
                calls.close(pcm)
                return nil
            }
            let error = Errno(negatedReturnValue: opened.code)
            // Busy is a server that answers; a PCM that is not defined is no server at all.
            guard error == .connectionRefused else { return nil }
            return "\(server): \(error)"
        }
    }

    /// The system's ALSA, its services probed through `server` (`"pulse"` where PulseAudio
    /// or PipeWire's pulse server carries the audio).
    public static func alsa(server: String? = nil) -> AudioSessionDeviceLayer {
        AudioSessionDeviceLayer(calls: SystemALSA(), server: server)
    }
}
