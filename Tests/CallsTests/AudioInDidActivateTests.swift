// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import AudioSession
import Calls
import Dispatch
import Foundation
import Locking
import MediaEngine
import SRTP
import Testing
import Transport

/// iOS apps set their session up inside `didActivate` (or before answering a second call) and
/// start their audio there, stopping it in `didDeactivate` (issue 23, rows 4 and 5). Both work
/// here as written, and the gate still holds: outside an activation the app cannot start audio.
@Suite struct AudioInDidActivateTests {
    static func gatedEngine() throws -> VoiceEngine {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null(pacing: .realtime))
        configuration.requiresAudioSession = true
        configuration.realtimePriority = nil
        return try VoiceEngine(configuration: configuration)
    }

    static func call(on engine: VoiceEngine) throws -> EngineCallID {
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.setRemote(UDPEndpoint(host: "127.0.0.1", port: 9))
        return try engine.addCall(CallMedia(configuration: MediaConfiguration(), sendingKey: key, receivingKey: key),
                                  transport: CallTransport(rtp: socket))
    }

    /// Row 5: `try engine.start()` in didActivate works (audio already runs: nothing happens),
    /// the app's `stop()` stops audio until its next `start()` or the next activation, and
    /// outside an activation — before, after, or interrupted — `start()` is refused.
    @Test func theAppStartsAndStopsItsAudioInsideTheActivation() throws {
        let engine = try Self.gatedEngine()
        defer { engine.shutdown() }
        let session = AudioSession(name: "call", priority: .call, center: AudioSessionCenter())
        try session.setCategory(.playAndRecord, mode: .voiceChat)
        try session.attach(engine)
        #expect(throws: VoiceEngineError.sessionNotActive, "before the activation") { try engine.start() }
        #expect(!engine.isRunning)

        try session.setActive(true)
        try engine.start()                          // the app's didActivate
        #expect(engine.isRunning)
        engine.stop()                               // the app pauses its audio
        #expect(!engine.isRunning && session.isActive, "stopped until started again, the session still active")
        try engine.start()
        #expect(engine.isRunning)

        try session.setActive(false)
        engine.stop()                               // the app's didDeactivate: nothing runs, nothing refused
        #expect(!engine.isRunning)
        #expect(throws: VoiceEngineError.sessionNotActive, "after the deactivation") { try engine.start() }

        // Interrupted by another session's non-mixable activation: the activation has ended.
        try session.setActive(true)
        let other = AudioSession(name: "other", priority: .call, center: session.center)
        try other.setCategory(.playback)
        try other.setActive(true)
        #expect(session.isInterrupted && !engine.isRunning)
        #expect(throws: VoiceEngineError.sessionNotActive, "interrupted") { try engine.start() }
    }

    /// Row 4: `setCategory(.playAndRecord, mode: .voiceChat, options:)` while active applies:
    /// the new mode's processing runs (device I/O restarted, the call kept), a new category
    /// posts a route change with reason categoryChange, and only what an activation would
    /// refuse is refused (the engine records: `.playback` cannot hold it), changing nothing.
    @Test func theCategoryChangesWhileActive() throws {
        let engine = try Self.gatedEngine()
        defer { engine.shutdown() }
        let id = try Self.call(on: engine)
        let session = AudioSession(name: "call", priority: .call, center: AudioSessionCenter())
        let reasons = Locked<[AudioSessionEvent.RouteChangeReason]>([])
        let queue = DispatchQueue(label: "AudioInDidActivateTests")
        session.setEventHandler(queue: queue) { event in
            if case let .routeChanged(reason, _) = event { reasons.withLock { $0.append(reason) } }
        }
        try session.setCategory(.multiRoute)
        try session.attach(engine)
        try session.setActive(true)
        #expect(engine.processing == .off, "multiRoute's default mode: no voice processing")
        queue.sync {}
        reasons.withLock { $0.removeAll() }

        try session.setCategory(.playAndRecord, mode: .voiceChat, options: [.allowBluetoothHFP])
        #expect(session.category == .playAndRecord && session.mode == .voiceChat)
        #expect(session.categoryOptions.contains(.allowBluetoothHFP))
        #expect(engine.processing == .voiceChat, "the mode's processing runs")
        #expect(engine.isRunning && session.isActive, "device I/O restarted")
        #expect(engine.statistics(of: id) != nil, "the call stayed")
        queue.sync {}
        #expect(reasons.withLock { $0 } == [.categoryChange])

        #expect(throws: AudioSessionError.cannotStartRecording(category: .playback)) {
            try session.setCategory(.playback)
        }
        #expect(session.category == .playAndRecord && session.mode == .voiceChat && engine.isRunning)
    }

    /// A session that stops mixing while active takes the audio as its activation would have:
    /// the other active session is interrupted.
    @Test func aSessionThatStopsMixingInterruptsTheOthers() throws {
        let center = AudioSessionCenter()
        let music = AudioSession(name: "music", priority: .normal, center: center)
        let call = AudioSession(name: "call", priority: .call, center: center)
        try music.setCategory(.playback, options: .mixWithOthers)
        try call.setCategory(.playAndRecord, options: .mixWithOthers)
        try music.setActive(true)
        try call.setActive(true)
        #expect(music.isActive && call.isActive, "both mix")
        try call.setCategory(.playAndRecord, mode: .voiceChat)
        #expect(call.isActive && !music.isActive && music.isInterrupted)
        #expect(throws: AudioSessionError.insufficientPriority(heldBy: "call")) { try music.setActive(true) }
        // A lower-priority session cannot stop mixing over a higher one that mixes with it.
        try call.setCategory(.playAndRecord, mode: .voiceChat, options: .mixWithOthers)
        try music.setActive(true)
        #expect(throws: AudioSessionError.insufficientPriority(heldBy: "call")) { try music.setCategory(.playback) }
        #expect(music.categoryOptions.contains(.mixWithOthers), "nothing changed")
    }

    /// The iOS shape end to end: the delegate sets the session up and starts the engine in
    /// didActivate and stops it in didDeactivate; nothing it does is refused.
    @Test func aProviderDelegateSetsItsAudioUpInDidActivate() throws {
        let engine = try Self.gatedEngine()
        defer { engine.shutdown() }
        let provider = try CallProvider(configuration: ProviderConfiguration(),
                                        audio: CallAudioSystem(center: AudioSessionCenter(), media: engine))
        let phone = AudioInDidActivatePhone(engine: engine)
        provider.setDelegate(phone, queue: phone.queue)
        let controller = CallController(provider: provider)
        let call = UUID()
        try provider.reportNewIncomingCall(with: call, update: CallUpdate(remoteHandle: CallHandle(kind: .phoneNumber, value: "+442079460000")))
        try controller.requestTransaction(with: AnswerCallAction(call: call))
        phone.settle()
        #expect(phone.failures.withLock { $0 }.isEmpty, "\(phone.failures.withLock { $0 })")
        #expect(phone.activations.withLock { $0 } == 1 && engine.isRunning)
        #expect(engine.processing == .voiceChat && provider.audioSession.mode == .voiceChat)
        try controller.requestTransaction(with: EndCallAction(call: call))
        phone.settle()
        #expect(phone.failures.withLock { $0 }.isEmpty, "\(phone.failures.withLock { $0 })")
        #expect(phone.deactivations.withLock { $0 } == 1 && !engine.isRunning)
    }
}

/// An app's provider delegate as iOS sample code writes it.
final class AudioInDidActivatePhone: ProviderDelegate {
    let engine: VoiceEngine
    let queue = DispatchQueue(label: "AudioInDidActivatePhone")
    let failures = Locked<[String]>([])
    let activations = Locked(0)
    let deactivations = Locked(0)

    init(engine: VoiceEngine) { self.engine = engine }

    func settle() { for _ in 0..<8 { queue.sync {} } }

    func providerDidReset(_ provider: CallProvider) { engine.stop() }
    func provider(_ provider: CallProvider, perform action: AnswerCallAction) { try? action.fulfill() }
    func provider(_ provider: CallProvider, perform action: EndCallAction) { try? action.fulfill() }

    func provider(_ provider: CallProvider, didActivate audioSession: AudioSession) {
        do {
            try audioSession.setCategory(.playAndRecord, mode: .voiceChat, options: [.allowBluetoothHFP])
            try engine.start()
            activations.withLock { $0 += 1 }
        } catch {
            failures.withLock { $0.append("didActivate: \(error)") }
        }
    }

    func provider(_ provider: CallProvider, didDeactivate audioSession: AudioSession) {
        engine.stop()
        deactivations.withLock { $0 += 1 }
    }
}
