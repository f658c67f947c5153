// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import AudioSession
@testable import Calls
import Dispatch
import Foundation
import Locking
import MediaEngine
import MediaEngineTesting
import RTP
import SRTP
import Testing
import TestSupport
import Transport

/// The flows end to end with real engines on virtual devices paced in real time and real UDP
/// on loopback: Alice's engine belongs to the provider (it starts only with the call
/// session), Bob's runs by itself.
@Suite(.timeLimit(.minutes(3))) struct CallEngineTests {
    static let alice = try! SpeechFixture.samples(SpeechFixture.alice, sampleRate: 48_000)

    /// Waits up to `seconds` for `condition`.
    static func wait(seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = MonotonicClock.nanoseconds + Int64(seconds * 1e9)
        while MonotonicClock.nanoseconds < deadline {
            if condition() { return true }
            MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 5_000_000)
        }
        return condition()
    }

    /// Translators are not Sendable; this one is handed once to the delegate's queue.
    final class TranslatorBox: @unchecked Sendable {
        let translator = ToneTranslationEngine()
    }

    @Test func incomingAnswerActivateMediaDTMFMuteTranslateHoldEnd() throws {
        // Bob: a plain engine on a null device, running now.
        let aliceKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let bobKey = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let (bobSocket, aliceSocket) = try LoopbackSocketPair.make()
        var bobConfiguration = VoiceEngineConfiguration()
        bobConfiguration.device = AudioDeviceOpener(name: "bob", backend: VirtualAudioDevice.null())
        bobConfiguration.realtimePriority = nil
        let bob = try VoiceEngine(configuration: bobConfiguration)
        let bobCall = try CallMedia(configuration: MediaConfiguration(), sendingKey: bobKey, receivingKey: aliceKey, ssrc: 0xB0B, rtcpSeed: 1)
        let bobID = try bob.addCall(bobCall, transport: CallTransport(rtp: bobSocket))
        let bobEvents = EventLog()
        bob.setEventHandler(queue: DispatchQueue(label: "bob events")) { bobEvents.append($0) }
        try bob.start()
        defer { bob.shutdown() }

        // Alice: her engine is the provider's, on a WAV device speaking her fixture.
        var aliceConfiguration = VoiceEngineConfiguration()
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: Self.alice), loops: true,
                                                recordingCapacitySamples: 48_000 * 20)
        aliceConfiguration.device = AudioDeviceOpener(name: "alice", backend: device)
        aliceConfiguration.realtimePriority = nil
        aliceConfiguration.requiresAudioSession = true
        let engine = try VoiceEngine(configuration: aliceConfiguration)
        defer { engine.shutdown() }
        let center = AudioSessionCenter()
        let provider = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: center, media: engine))
        let runningWhenAnswerPerformed = Locked<Bool?>(nil)
        let box = TranslatorBox()
        let delegate = RecordingDelegate { action in
            if action is AnswerCallAction { runningWhenAnswerPerformed.withLock { $0 = engine.isRunning } }
            if let translating = action as? SetTranslatingCallAction, translating.isTranslating {
                try? translating.fulfill(using: box.translator)
                return nil
            }
            return .fulfill
        }
        provider.setDelegate(delegate, queue: delegate.queue)
        let controller = CallController(provider: provider)

        let call = UUID()
        try provider.reportNewIncomingCall(with: call, update: CallUpdate(remoteHandle: CallHandle(kind: .generic, value: "sip:bob@127.0.0.1")))
        let aliceCall = try CallMedia(configuration: MediaConfiguration(), sendingKey: aliceKey, receivingKey: bobKey, ssrc: 0xA11CE, rtcpSeed: 2)
        try provider.addMedia(aliceCall, transport: CallTransport(rtp: aliceSocket), to: call)
        #expect(throws: VoiceEngineError.sessionNotActive, "the app cannot start media before didActivate") { try engine.start() }
        #expect(!engine.isRunning)

        try controller.requestTransaction(with: AnswerCallAction(call: call))
        delegate.settle()
        #expect(runningWhenAnswerPerformed.withLock { $0 } == false, "no device I/O while the answer is performed")
        #expect(engine.isRunning && provider.audioSession.isActive, "answer fulfilled: the session started the engine")
        #expect(delegate.events.suffix(2) == [.perform("answer", call), .activated])

        // Media flows both ways.
        let flowing = Self.wait(seconds: 60) {
            (bob.statistics(of: bobID)?.inbound.packetsReceived ?? 0) > 40 && aliceCall.statistics.inbound.packetsReceived > 40
        }
        #expect(flowing, "Bob got \(bob.statistics(of: bobID)?.inbound.packetsReceived ?? 0), Alice \(aliceCall.statistics.inbound.packetsReceived)")

        // DTMF reaches Bob as an RFC 4733 event.
        try controller.requestTransaction(with: PlayDTMFCallAction(call: call, digits: "5"))
        delegate.settle()
        let keyed = Self.wait(seconds: 60) {
            bobEvents.all.contains { if case .call(_, .dtmfReceived(.digit5, _)) = $0 { true } else { false } }
        }
        #expect(keyed, "Bob received the key press")

        // Mute and translation reach the media.
        try controller.requestTransaction(with: SetMutedCallAction(call: call, muted: true, origin: .user))
        try controller.requestTransaction(with: SetTranslatingCallAction(call: call, translating: true, localLanguage: "en", remoteLanguage: "de"))
        delegate.settle()
        #expect(aliceCall.isMuted)
        #expect(provider.liveCalls.first?.isTranslating == true && provider.liveCalls.first?.mute.isMuted == true)
        let sentBefore = aliceCall.statistics.outbound.packetsSent
        #expect(Self.wait(seconds: 60) { aliceCall.statistics.outbound.packetsSent > sentBefore + 25 }, "the uplink runs while muted and translating")

        // Hold: the only call is held, the session deactivates and the engine stops.
        try controller.requestTransaction(with: SetHeldCallAction(call: call, onHold: true))
        delegate.settle()
        #expect(aliceCall.isHeld && !engine.isRunning && !provider.audioSession.isActive)
        try controller.requestTransaction(with: SetHeldCallAction(call: call, onHold: false))
        delegate.settle()
        #expect(!aliceCall.isHeld && engine.isRunning)

        // End: audio stops, the media leaves the engine.
        try controller.requestTransaction(with: EndCallAction(call: call))
        delegate.settle()
        #expect(!engine.isRunning && !provider.audioSession.isActive)
        #expect(engine.callIDs.isEmpty, "the ended call's media left the engine")
        #expect(delegate.events.filter { $0 == .activated || $0 == .deactivated } == [.activated, .deactivated, .activated, .deactivated])
    }

    @Test func dtmfPausesWaitForTheClockOrTheUser() throws {
        let socket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let sink = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        try socket.setRemote(sink.localEndpoint)
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        configuration.realtimePriority = nil
        configuration.requiresAudioSession = true
        let engine = try VoiceEngine(configuration: configuration)
        defer { engine.shutdown() }
        let clock = ManualCallClock()
        let provider = try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter(), media: engine),
                                        clock: clock)
        let delegate = RecordingDelegate()
        provider.setDelegate(delegate, queue: delegate.queue)
        let controller = CallController(provider: provider)
        let call = UUID()
        try controller.requestTransaction(with: StartCallAction(call: call, handle: CallHandle(kind: .generic, value: "sip:ivr@example.org")))
        let media = try CallMedia(configuration: MediaConfiguration(), sendingKey: nil, receivingKey: nil)
        try provider.addMedia(media, transport: CallTransport(rtp: socket), to: call)
        delegate.settle()
        #expect(engine.isRunning)
        func sent() -> Int { media.statistics.outbound.telephoneEventsSent }

        try controller.requestTransaction(with: PlayDTMFCallAction(call: call, digits: "1", type: .softPause))
        delegate.settle()
        #expect(!Self.wait(seconds: 0.3) { sent() > 0 }, "nothing before the soft pause is over")
        clock.advance(by: PlayDTMFCallAction.softPauseSeconds)
        #expect(Self.wait(seconds: 60) { sent() > 0 }, "the digit follows the soft pause")
        #expect(Self.wait(seconds: 60) { !media.isSendingDTMF })
        let afterSoft = sent()

        try controller.requestTransaction(with: PlayDTMFCallAction(call: call, digits: "2", type: .hardPause))
        delegate.settle()
        clock.advance(by: 30)
        #expect(!Self.wait(seconds: 0.3) { sent() > afterSoft }, "a hard pause waits for the user")
        provider.continueDTMF(for: call)
        #expect(Self.wait(seconds: 60) { sent() > afterSoft }, "the digit follows the user's go-ahead")
    }

    @Test func theRingtonePlaysOnItsOwnDeviceUntilAnswered() throws {
        let ringtone = try Ringtone(path: Fixtures.ringtonePath)
        let device = VirtualAudioDevice.wavFile(WAVAudio(sampleRate: 48_000, channelCount: 1, samples: [0]), recordingCapacitySamples: 48_000 * 10)
        let player = RingtonePlayer(ringtone: ringtone, device: "ring", calls: device)
        let callIO = FakeIO()
        let provider = try CallProvider(configuration: ProviderConfiguration(ringtonePath: Fixtures.ringtonePath),
                                        audio: CallAudioSystem(center: AudioSessionCenter(), callIO: callIO, ringer: player),
                                        clock: ManualCallClock())
        let delegate = RecordingDelegate()
        provider.setDelegate(delegate, queue: delegate.queue)
        let call = UUID()
        try provider.reportNewIncomingCall(with: call, update: CallUpdate())
        #expect(player.isRunningIO && provider.ringtoneSession.isActive)
        #expect(Self.wait(seconds: 60) { device.recording().samples.count >= 48_000 / 2 }, "half a second of ringing")
        let rang = device.recording().samples
        let tone = SignalComparison.toneAmplitude(rang, frequencyHz: 440, sampleRate: 48_000)
        #expect(tone > 4_000, "the device played the ringtone's 440 Hz: amplitude \(tone)")

        try CallController(provider: provider).requestTransaction(with: AnswerCallAction(call: call))
        delegate.settle()
        #expect(!player.isRunningIO && !provider.ringtoneSession.isActive, "answering stops the ringtone")
        #expect(callIO.isRunningIO)
        let after = device.recording().samples.count
        MonotonicClock.sleep(untilNanoseconds: MonotonicClock.nanoseconds + 100_000_000)
        #expect(device.recording().samples.count == after, "the ringtone device is closed")
    }

    @Test func providerRefusesAnEngineThatStartsWithoutItsSession() throws {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        let engine = try VoiceEngine(configuration: configuration)
        defer { engine.shutdown() }
        #expect(throws: CallProviderError.self) {
            try CallProvider(configuration: ProviderConfiguration(), audio: CallAudioSystem(center: AudioSessionCenter(), media: engine))
        }
    }
}

/// Engine events collected through the handler.
final class EventLog: Sendable {
    private let storage = Locked<[VoiceEngineEvent]>([])
    func append(_ event: VoiceEngineEvent) { storage.withLock { $0.append(event) } }
    var all: [VoiceEngineEvent] { storage.withLock { $0 } }
}
