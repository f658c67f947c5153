// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
@testable import AudioSession
import Dispatch
import Locking
import MediaEngine
import SystemErrors

/// Real `VoiceEngine`s on scripted ALSA devices, each attached to a session of one
/// `AudioSessionCenter`, and a scripted device layer: the sound server (its `pulse` PCM) and the
/// device list. Devices go away, come back, get held by another process; the server stops and
/// starts. Events of every session are kept in order.
final class SessionWorld: @unchecked Sendable {
    /// One engine on its own scripted device, and the session that owns it.
    final class Unit: @unchecked Sendable {
        let alsa: ScriptedALSA
        let engine: VoiceEngine
        var session: AudioSession!
        let events = Locked<[AudioSessionEvent]>([])
        /// Events already looked at by the checker.
        var seen = 0
        /// The device is gone (ENODEV on open) / held by another process (EBUSY on open).
        var absent = false
        var busy = false

        init(index: Int) throws {
            alsa = ScriptedALSA(pollIntervalMicroseconds: 5_000)
            var configuration = VoiceEngineConfiguration()
            configuration.device = AudioDeviceOpener(name: "device\(index)", calls: alsa)
            configuration.requiresAudioSession = true
            configuration.realtimePriority = nil
            engine = try VoiceEngine(configuration: configuration)
        }

        var newEvents: ArraySlice<AudioSessionEvent> {
            let all = events.withLock { $0 }
            defer { seen = all.count }
            return all[seen...]
        }
    }

    static let builtIn = AudioDeviceInfo(name: "default", description: "Default ALSA device", directions: .duplex, card: nil)
    static let usbHeadset = AudioDeviceInfo(name: "plughw:CARD=Headset,DEV=0", description: "USB Headset — USB Audio", directions: .duplex, card: 1)
    static let bluetoothHFP = AudioDeviceInfo(name: "bluealsa:DEV=00:11:22:33:44:55,PROFILE=sco", description: "Jabra — Bluetooth SCO", directions: .duplex, card: nil)
    static let bluetoothA2DP = AudioDeviceInfo(name: "bluealsa:DEV=00:11:22:33:44:55,PROFILE=a2dp", description: "Jabra — Bluetooth A2DP", directions: .playback, card: nil)
    static let hdmi = AudioDeviceInfo(name: "hdmi:CARD=PCH,DEV=0", description: "HDA Intel PCH — HDMI 0", directions: .playback, card: 0)
    static let optionalDevices = [usbHeadset, bluetoothHFP, bluetoothA2DP, hdmi]

    let units: [Unit]
    /// The device layer: its device list and the server's `pulse` PCM.
    let layer = ScriptedALSA()
    let queue = DispatchQueue(label: "SessionWorld events")
    private(set) var center: AudioSessionCenter!
    var serverDown = false
    var plugged: Set<String> = []

    init(sessions: Int) throws {
        units = try (0..<sessions).map { try Unit(index: $0) }
    }

    /// A new center and new sessions (call, ringtone, prompt, …) on the same engines; every
    /// device present and free, the server up.
    func reset() throws {
        for unit in units { unit.session = nil }
        center = nil
        serverDown = false
        plugged = []
        for unit in units {
            unit.absent = false
            unit.busy = false
            unit.seen = 0
            unit.events.withLock { $0.removeAll() }
        }
        applyRefusals()
        layer.setDevices([Self.builtIn])
        let center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(calls: layer, server: "pulse"))
        self.center = center
        let priorities: [AudioSession.Priority] = [.call, .ringtone, .normal]
        for (index, unit) in units.enumerated() {
            let session = AudioSession(name: "s\(index)", priority: priorities[index % priorities.count], center: center)
            session.setEventHandler(queue: queue) { [unit] event in unit.events.withLock { $0.append(event) } }
            try session.attach(unit.engine)
            // Categories an engine (it plays and records) runs in: a call, a mixable ringtone, a prompt.
            switch index % 3 {
            case 0: try session.setCategory(.playAndRecord, mode: .voiceChat)
            case 1: try session.setCategory(.playAndRecord, options: .mixWithOthers)
            default: try session.setCategory(.playAndRecord, mode: .voicePrompt, options: .duckOthers)
            }
            unit.session = session
        }
    }

    /// What each scripted layer refuses opens with, from the model.
    func applyRefusals() {
        layer.refuseOpens(with: serverDown ? .connectionRefused : nil)
        for unit in units {
            let refusal: Errno? = serverDown ? .connectionRefused : unit.absent ? .noSuchDevice : unit.busy ? .resourceBusy : nil
            unit.alsa.refuseOpens(with: refusal)
        }
    }

    /// Makes a running engine's device fail (capture gone, reopening refused: the stream
    /// reports the device lost, the engine stops) and waits until the engine has stopped.
    /// Capture only: a scripted playback failure left unconsumed would hit the next start.
    func failRunningDevice(_ unit: Unit) -> Bool {
        guard unit.engine.isRunning else { return true }
        unit.alsa.failIO(.capture, .noSuchDevice)
        let deadline = MonotonicClock.nanoseconds + 10_000_000_000
        while unit.engine.isRunning {
            guard MonotonicClock.nanoseconds < deadline else { return false }
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 500_000)
        }
        return true
    }

    /// Lets every notice and event land.
    func settle() {
        center.waitForPendingNotices()
        queue.sync {}
    }

    func setDevices() {
        layer.setDevices([Self.builtIn] + Self.optionalDevices.filter { plugged.contains($0.name) })
    }
}
