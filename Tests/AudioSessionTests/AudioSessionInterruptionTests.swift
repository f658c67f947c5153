// SPDX-License-Identifier: Apache-2.0
import AudioDevicesTesting
import Dispatch
@testable import AudioSession
import Locking
import Testing

/// Interruptions between sessions, by lost and busy devices, and media services lost and
/// reset, on stand-in I/O (`RecordingIO`): each case the property test reaches by chance, here
/// on purpose.
@Suite struct AudioSessionInterruptionTests {
    /// A session with its I/O and the events it got, in order.
    final class Party: Sendable {
        let session: AudioSession
        let io = RecordingIO()
        let queue = DispatchQueue(label: "Party")
        private let received = Locked<[AudioSessionEvent]>([])

        init(_ name: String, priority: AudioSession.Priority, center: AudioSessionCenter,
             options: AudioSession.CategoryOptions = []) throws {
            session = AudioSession(name: name, priority: priority, center: center)
            try session.setCategory(.playAndRecord, mode: .voiceChat, options: options)
            try session.attach(io)
            session.setEventHandler(queue: queue) { [weak self] event in self?.received.withLock { $0.append(event) } }
        }

        /// Events so far, after every notice and delivery has landed; forgets them.
        func take() -> [AudioSessionEvent] {
            session.center.waitForPendingNotices()
            queue.sync {}
            return received.withLock { events in
                defer { events.removeAll() }
                return events.filter { if case .routeChanged = $0 { false } else { true } }
            }
        }
    }

    @Test func sessionsHeldByAnInterruptedSessionPassToItsInterrupter() throws {
        let center = AudioSessionCenter()
        let prompt = try Party("prompt", priority: .normal, center: center)
        let ringtone = try Party("ringtone", priority: .ringtone, center: center)
        let call = try Party("call", priority: .call, center: center)
        try prompt.session.setActive(true)
        try ringtone.session.setActive(true)
        #expect(prompt.take() == [.interruptionBegan(reason: .default, by: "ringtone")])
        try call.session.setActive(true)
        #expect(ringtone.take() == [.interruptionBegan(reason: .default, by: "call")])
        // The ringtone, inactive, never deactivates; the call's deactivation frees both.
        try call.session.setActive(false, options: .notifyOthersOnDeactivation)
        #expect(ringtone.take() == [.interruptionEnded(shouldResume: true)])
        #expect(prompt.take() == [.interruptionEnded(shouldResume: true)])
        #expect(!prompt.session.isInterrupted && !ringtone.session.isInterrupted)
        #expect(!prompt.io.isRunningIO && !ringtone.io.isRunningIO, "audio does not restart by itself")
    }

    @Test func aLostDeviceInterruptsItsSessionFreesThoseItHeldAndEndsWhenTheDeviceIsBack() throws {
        let center = AudioSessionCenter()
        let prompt = try Party("prompt", priority: .normal, center: center)
        let call = try Party("call", priority: .call, center: center)
        try prompt.session.setActive(true)
        try call.session.setActive(true)
        _ = prompt.take()
        call.io.state.withLock { $0.probe = .cannotStartPlaying(reason: "gone") }
        call.io.loseDevice()
        #expect(call.take() == [.interruptionBegan(reason: .routeDisconnected, by: nil)])
        #expect(prompt.take() == [.interruptionEnded(shouldResume: false)], "nobody holds the audio the call held")
        #expect(!call.session.isActive && call.session.isInterrupted)
        center.checkDevices()
        #expect(call.take().isEmpty, "still gone")
        call.io.state.withLock { $0.probe = nil }
        center.checkDevices()
        #expect(call.take() == [.interruptionEnded(shouldResume: true)])
        #expect(!call.session.isInterrupted && !call.io.isRunningIO)
    }

    @Test func aDeviceHeldByAnotherProcessFailsActivationAndInterruptsUntilItFrees() throws {
        let center = AudioSessionCenter()
        let call = try Party("call", priority: .call, center: center)
        call.io.state.withLock {
            $0.failNextStart = .deviceBusy(device: "hw:0")
            $0.probe = .deviceBusy(device: "hw:0")
        }
        #expect(throws: AudioSessionError.deviceBusy(device: "hw:0")) { try call.session.setActive(true) }
        #expect(AudioSessionError.deviceBusy(device: "hw:0").code == .resourceNotAvailable)
        #expect(call.take() == [.interruptionBegan(reason: .deviceBusy, by: nil)])
        #expect(!call.session.isActive && call.session.isInterrupted && !call.io.isRunningIO)
        center.checkDevices()
        #expect(call.take().isEmpty)
        call.io.state.withLock { $0.probe = nil }
        center.checkDevices()
        #expect(call.take() == [.interruptionEnded(shouldResume: true)])
        try call.session.setActive(true)
        #expect(call.io.isRunningIO)
    }

    @Test func mediaServicesLostStopEverySessionAndTheResetRestartsNothing() throws {
        let serverUp = Locked(true)
        let layer = AudioSessionDeviceLayer(devices: { [] }, servicesFailure: { serverUp.withLock { $0 } ? nil : "pulse: refused" })
        let center = AudioSessionCenter(deviceLayer: layer)
        let ringtone = try Party("ringtone", priority: .ringtone, center: center)
        let call = try Party("call", priority: .call, center: center, options: .mixWithOthers)
        try ringtone.session.setCategory(.playAndRecord, options: .mixWithOthers)
        try call.session.setPreferences(.init(sampleRate: 16_000))
        try ringtone.session.setActive(true)
        try call.session.setActive(true)
        serverUp.withLock { $0 = false }
        center.checkDevices()
        #expect(center.mediaServicesLost)
        for party in [ringtone, call] {
            #expect(party.take() == [.mediaServicesWereLost])
            #expect(!party.session.isActive && !party.io.isRunningIO)
        }
        #expect(throws: AudioSessionError.mediaServicesLost(reason: "pulse: refused")) { try call.session.setActive(true) }
        #expect(AudioSessionError.mediaServicesLost(reason: "").code == .mediaServicesFailed)
        serverUp.withLock { $0 = true }
        center.checkDevices()
        for party in [ringtone, call] {
            #expect(party.take() == [.mediaServicesWereReset])
            #expect(!party.session.isActive && !party.io.isRunningIO, "audio does not restart by itself")
        }
        // The configuration survives and is applied again at the next activation.
        #expect(call.session.category == .playAndRecord && call.session.mode == .voiceChat && call.session.preferences == .init(sampleRate: 16_000))
        try call.session.setActive(true)
        #expect(call.io.isRunningIO && call.session.hardware?.sampleRate == 16_000)
        #expect(call.io.state.withLock { $0.processing } == AudioSession.Mode.voiceChat.processing)
    }

    @Test func anActivationThatFindsTheServerGoneLosesTheMediaServices() throws {
        let center = AudioSessionCenter()
        let prompt = try Party("prompt", priority: .normal, center: center, options: .mixWithOthers)
        let call = try Party("call", priority: .call, center: center, options: .mixWithOthers)
        try prompt.session.setActive(true)
        call.io.state.withLock { $0.failNextStart = .mediaServicesLost(reason: "pulse: refused") }
        #expect(throws: AudioSessionError.mediaServicesLost(reason: "pulse: refused")) { try call.session.setActive(true) }
        #expect(center.mediaServicesLost)
        #expect(prompt.take() == [.mediaServicesWereLost] && !prompt.io.isRunningIO)
        // The default layer has no server to ask: the next check finds the services back.
        center.checkDevices()
        #expect(prompt.take() == [.mediaServicesWereReset] && call.take() == [.mediaServicesWereLost, .mediaServicesWereReset])
    }

    @Test func aResetSupersedesEveryInterruption() throws {
        let serverUp = Locked(true)
        let center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(devices: { [] }, servicesFailure: { serverUp.withLock { $0 } ? nil : "down" }))
        let prompt = try Party("prompt", priority: .normal, center: center)
        let call = try Party("call", priority: .call, center: center)
        try prompt.session.setActive(true)
        try call.session.setActive(true)
        #expect(prompt.take() == [.interruptionBegan(reason: .default, by: "call")])
        serverUp.withLock { $0 = false }
        center.checkDevices()
        serverUp.withLock { $0 = true }
        center.checkDevices()
        #expect(prompt.take() == [.mediaServicesWereLost, .mediaServicesWereReset])
        #expect(!prompt.session.isInterrupted && !call.session.isActive)
        try call.session.setActive(false, options: .notifyOthersOnDeactivation)
        #expect(prompt.take().isEmpty, "the reset already ended it")
    }
}

/// The device layer's view of the sound server, and events on the session's `AsyncStream`.
@Suite struct AudioSessionDeviceLayerTests {
    @Test func theServerIsDownOnlyWhileItRefusesConnections() {
        let alsa = ScriptedALSA()
        let layer = AudioSessionDeviceLayer(calls: alsa, server: "pulse")
        #expect(layer.servicesFailure() == nil)
        #expect(alsa.openCount == 0, "the probe closes what it opened")
        alsa.refuseOpens(with: .resourceBusy)
        #expect(layer.servicesFailure() == nil, "a busy PCM has a server that answers")
        alsa.refuseOpens(with: .connectionRefused)
        #expect(layer.servicesFailure()?.hasPrefix("pulse: ") == true)
        #expect(AudioSessionDeviceLayer(calls: alsa, server: nil).servicesFailure() == nil, "no server, never down")
        alsa.setDevices([AudioSessionRouteTests.usb])
        #expect(layer.devices() == [AudioSessionRouteTests.usb])
    }

    @Test func mediaServicesEventsReachTheAsyncStream() async throws {
        let alsa = ScriptedALSA()
        let center = AudioSessionCenter(deviceLayer: AudioSessionDeviceLayer(calls: alsa, server: "pulse"))
        let session = AudioSession(center: center)
        alsa.refuseOpens(with: .connectionRefused)
        center.checkDevices()
        alsa.refuseOpens(with: nil)
        center.checkDevices()
        var events: [AudioSessionEvent] = []
        for await event in session.events {
            events.append(event)
            if events.count == 2 { break }
        }
        #expect(events == [.mediaServicesWereLost, .mediaServicesWereReset])
    }
}
