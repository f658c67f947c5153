// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
@testable import AudioSession
import MediaEngine
import Dispatch
import Locking
import Testing

/// Ports mapped from ALSA device lists, the route each category and option set chooses, the
/// preferred input, the speaker override and route change events with their reasons.
@Suite struct AudioSessionRouteTests {
    typealias Port = AudioSession.PortDescription
    static let builtIn = AudioDeviceInfo(name: "default", description: "Default ALSA device", directions: .duplex, card: nil)
    static let cardHW = AudioDeviceInfo(name: "hw:CARD=PCH,DEV=0", description: "HDA Intel PCH — ALC3246 Analog", directions: .duplex, card: 0)
    static let cardPlug = AudioDeviceInfo(name: "plughw:CARD=PCH,DEV=0", description: "HDA Intel PCH — ALC3246 Analog", directions: .duplex, card: 0)
    static let usb = AudioDeviceInfo(name: "plughw:CARD=Device,DEV=0", description: "USB Audio Device — USB Audio", directions: .duplex, card: 1)
    static let headset = AudioDeviceInfo(name: "sysdefault:CARD=H390", description: "Logitech USB Headset H390 — Headset", directions: .duplex, card: 2)
    static let hfp = AudioDeviceInfo(name: "bluealsa:DEV=00:11:22:33:44:55,PROFILE=sco", description: "Jabra Evolve — Bluetooth SCO", directions: .duplex, card: nil)
    static let a2dp = AudioDeviceInfo(name: "bluealsa:DEV=00:11:22:33:44:55,PROFILE=a2dp", description: "Jabra Evolve — A2DP (SBC)", directions: .playback, card: nil)
    static let hdmi = AudioDeviceInfo(name: "hdmi:CARD=PCH,DEV=0", description: "HDA Intel PCH — HDMI 0", directions: .playback, card: 0)
    static let plugins = ["null", "dmix:CARD=PCH,DEV=0", "dsnoop:CARD=PCH,DEV=0", "surround51:CARD=PCH,DEV=0", "iec958:CARD=PCH,DEV=0"]
        .map { AudioDeviceInfo(name: $0, description: $0, directions: .duplex, card: 0) }

    @Test func portTypesAreMappedFromTheDeviceList() {
        let ports = AudioSessionRoutes.ports(of: [Self.builtIn, Self.cardHW, Self.cardPlug, Self.usb, Self.headset, Self.hfp, Self.a2dp, Self.hdmi] + Self.plugins)
        #expect(ports.inputs.map(\.portType) == [.builtInMic, .builtInMic, .usbAudio, .usbAudio, .bluetoothHFP])
        #expect(ports.inputs.map(\.uid) == ["default", "plughw:CARD=PCH,DEV=0", "plughw:CARD=Device,DEV=0", "sysdefault:CARD=H390", Self.hfp.name],
                "one port per card and kind, the converting PCM preferred over hw")
        #expect(ports.outputs.map(\.portType) == [.builtInSpeaker, .builtInSpeaker, .usbAudio, .usbAudio, .bluetoothHFP, .bluetoothA2DP, .hdmi])
        #expect(ports.inputs[2].portName == "USB Audio Device")
        // A card naming itself a headset, not USB, is a wired headset.
        let wired = AudioDeviceInfo(name: "hw:CARD=Jack,DEV=0", description: "Headset Jack — Headset", directions: .duplex, card: 3)
        #expect(AudioSessionRoutes.ports(of: [wired]).inputs.map(\.portType) == [.headsetMic])
        #expect(AudioSessionRoutes.ports(of: [wired]).outputs.map(\.portType) == [.headphones])
    }

    @Test func bluetoothIsOfferedOnlyWhenTheOptionsAllowIt() throws {
        let devices = [Self.builtIn, Self.hfp, Self.a2dp]
        let center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(devices: { devices }))
        let session = AudioSession(center: center)
        try session.setCategory(.playAndRecord)
        #expect(session.availableInputs.map(\.portType) == [.builtInMic])
        #expect(session.currentRoute.outputs.map(\.portType) == [.builtInSpeaker])
        try session.setCategory(.playAndRecord, options: .allowBluetoothHFP)
        #expect(session.availableInputs.map(\.portType) == [.builtInMic, .bluetoothHFP])
        #expect(session.currentRoute.inputs.map(\.portType) == [.bluetoothHFP])
        #expect(session.currentRoute.outputs.map(\.portType) == [.bluetoothHFP])
        try session.setCategory(.playAndRecord, options: .allowBluetoothA2DP)
        #expect(session.currentRoute.inputs.map(\.portType) == [.builtInMic])
        #expect(session.currentRoute.outputs.map(\.portType) == [.bluetoothA2DP])
        // Both allowed in a recording category: HFP wins.
        try session.setCategory(.playAndRecord, options: [.allowBluetoothHFP, .allowBluetoothA2DP])
        #expect(session.currentRoute.outputs.map(\.portType) == [.bluetoothHFP])
        // playback implies A2DP and records nothing.
        try session.setCategory(.playback)
        #expect(session.availableInputs.isEmpty && session.currentRoute.inputs.isEmpty)
        #expect(session.currentRoute.outputs.map(\.portType) == [.bluetoothA2DP])
        try session.setCategory(.record, options: .allowBluetoothHFP)
        #expect(session.currentRoute.outputs.isEmpty && session.currentRoute.inputs.map(\.portType) == [.bluetoothHFP])
    }

    /// A session on a scripted device list, with its route change events.
    final class Observed: Sendable {
        final class DeviceList: Sendable { let list = Locked<[AudioDeviceInfo]>([AudioSessionRouteTests.builtIn]) }
        let devices = DeviceList()
        let center: AudioSessionCenter
        let session: AudioSession
        let queue = DispatchQueue(label: "Observed")
        private let received = Locked<[AudioSessionEvent]>([])

        init() {
            let devices = self.devices
            center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(devices: { devices.list.withLock { $0 } }))
            session = AudioSession(center: center)
            session.setEventHandler(queue: queue) { [weak self] event in self?.received.withLock { $0.append(event) } }
        }

        func plug(_ list: [AudioDeviceInfo]) {
            devices.list.withLock { $0 = list }
            center.checkDevices()
        }

        /// The route change reasons so far; forgets them.
        func reasons() -> [AudioSessionEvent.RouteChangeReason] {
            queue.sync {}
            return received.withLock { events in
                defer { events.removeAll() }
                return events.compactMap { if case let .routeChanged(reason, _) = $0 { reason } else { nil } }
            }
        }
    }

    @Test func routeChangesComeWithTheirReasons() throws {
        let observed = Observed()
        let session = observed.session
        try session.setCategory(.playAndRecord, mode: .voiceChat)
        #expect(observed.reasons() == [.categoryChange])
        let before = session.currentRoute
        observed.plug([Self.builtIn, Self.usb])
        #expect(observed.reasons() == [.newDeviceAvailable])
        #expect(session.currentRoute.inputs.map(\.portType) == [.usbAudio] && session.currentRoute.outputs.map(\.portType) == [.usbAudio])
        observed.plug([Self.builtIn, Self.usb, Self.hdmi])
        #expect(observed.reasons().isEmpty, "an HDMI output does not take a USB headset's route")
        // The preferred input: the built-in microphone, output stays where the category puts it.
        let builtInMic = try #require(session.availableInputs.first { $0.portType == .builtInMic })
        try session.setPreferredInput(builtInMic)
        #expect(observed.reasons() == [.routeConfigurationChange])
        #expect(session.currentRoute.inputs == [builtInMic] && session.preferredInput == builtInMic)
        #expect(throws: AudioSessionError.portNotAvailable(uid: "hw:9")) {
            try session.setPreferredInput(Port(portType: .usbAudio, portName: "x", uid: "hw:9"))
        }
        try session.setPreferredInput(nil)
        _ = observed.reasons()
        // The speaker override lasts until the next route change.
        try session.overrideOutputAudioPort(.speaker)
        #expect(observed.reasons() == [.override])
        #expect(session.currentRoute.outputs.map(\.portType) == [.builtInSpeaker])
        observed.plug([Self.builtIn])
        #expect(observed.reasons() == [.oldDeviceUnavailable])
        observed.plug([Self.builtIn, Self.usb])
        #expect(observed.reasons() == [.newDeviceAvailable])
        #expect(session.currentRoute.outputs.map(\.portType) == [.usbAudio], "the override ended with the route change")
        #expect(session.currentRoute != before)
        // Outside playAndRecord the override is refused (iOS: only playAndRecord).
        try session.setCategory(.playback)
        #expect(throws: AudioSessionError.incompatibleCategory(category: .playback, reason: "overrideOutputAudioPort works only in playAndRecord")) {
            try session.overrideOutputAudioPort(.speaker)
        }
        #expect(AudioSessionError.incompatibleCategory(category: .playback, reason: "").code == .incompatibleCategory)
    }

    @Test func theRouteChangeNamesThePreviousRoute() throws {
        let observed = Observed()
        try observed.session.setCategory(.playAndRecord)
        observed.queue.sync {}
        let before = observed.session.currentRoute
        observed.plug([Self.builtIn, Self.headset])
        observed.queue.sync {}
        let events = observed.reasons()
        #expect(events == [.categoryChange, .newDeviceAvailable])
        #expect(before.inputs.map(\.uid) == ["default"] && observed.session.currentRoute.inputs.map(\.uid) == [Self.headset.name])
    }
}

/// A `VoiceEngine` follows its session's route: it opens the route's PCM, and moves with the
/// route while active (the headset unplugged mid-call, audio goes on on the built-in device).
@Suite struct AudioSessionEngineRouteTests {
    @Test func theEngineRunsOnTheRoutesDeviceAndMovesWithIt() throws {
        let layer = ScriptedALSA()
        layer.setDevices([AudioSessionRouteTests.builtIn, AudioSessionRouteTests.usb])
        let device = ScriptedALSA(pollIntervalMicroseconds: 5_000)
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "configured", calls: device)
        configuration.requiresAudioSession = true
        configuration.realtimePriority = nil
        let engine = try VoiceEngine(configuration: configuration)
        defer { engine.shutdown() }
        let center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(calls: layer, server: nil))
        let session = AudioSession(name: "call", priority: .call, center: center)
        try session.setCategory(.playAndRecord, mode: .voiceChat)
        try session.attach(engine)
        try session.setActive(true)
        #expect(engine.isRunning && engine.deviceName == AudioSessionRouteTests.usb.name)
        // Unplugged: the engine restarts on the built-in PCM, the session stays active.
        layer.setDevices([AudioSessionRouteTests.builtIn])
        center.checkDevices()
        #expect(session.isActive && engine.isRunning && engine.deviceName == "default")
        #expect(device.openCount == 2, "the headset's PCMs were closed, the built-in ones opened")
        // The speaker override on the built-in route changes nothing on the device; the
        // preferred input back on a plugged headset moves it again.
        layer.setDevices([AudioSessionRouteTests.builtIn, AudioSessionRouteTests.usb])
        center.checkDevices()
        #expect(engine.deviceName == AudioSessionRouteTests.usb.name)
        try session.overrideOutputAudioPort(.speaker)
        #expect(session.isActive && engine.isRunning && engine.deviceName == "default", "the speaker override moves output to the built-in PCM")
        try session.setActive(false)
        #expect(!engine.isRunning && device.openCount == 0)
    }

    @Test func aRouteWhoseDeviceWillNotStartInterruptsTheSession() throws {
        let layer = ScriptedALSA()
        layer.setDevices([AudioSessionRouteTests.builtIn])
        let device = ScriptedALSA(pollIntervalMicroseconds: 5_000)
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "configured", calls: device)
        configuration.requiresAudioSession = true
        configuration.realtimePriority = nil
        let engine = try VoiceEngine(configuration: configuration)
        defer { engine.shutdown() }
        let center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(calls: layer, server: nil))
        let session = AudioSession(name: "call", priority: .call, center: center)
        try session.setCategory(.playAndRecord, mode: .voiceChat)
        try session.attach(engine)
        try session.setActive(true)
        device.refuseOpens(with: .resourceBusy)
        layer.setDevices([AudioSessionRouteTests.builtIn, AudioSessionRouteTests.usb])
        center.checkDevices()
        #expect(!session.isActive && session.isInterrupted && !engine.isRunning)
        device.refuseOpens(with: nil)
        center.checkDevices()
        #expect(!session.isInterrupted && !engine.isRunning, "ended, and nothing restarts by itself")
    }
}
