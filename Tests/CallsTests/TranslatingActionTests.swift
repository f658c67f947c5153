// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
@testable import Calls
import Foundation
import MediaEngine
import MediaEngineTesting
import SRTP
import Testing
import Transport

/// Row 7 of issue 23: a SetTranslatingCallAction answered as iOS code answers most actions,
/// with `fulfill()`, must not leave a call that says it translates while nothing does (the
/// far end would hear silence): starting needs the translator, typed; a fulfilment that
/// returns is one whose translator is in the call's media.
@Suite struct TranslatingActionTests {
    static func engineHarness() throws -> Harness {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        configuration.realtimePriority = nil
        configuration.requiresAudioSession = true
        return try Harness(engine: VoiceEngine(configuration: configuration), respond: { $0 is AnswerCallAction ? .fulfill : nil })
    }

    static func media() throws -> CallMedia {
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        return try CallMedia(configuration: MediaConfiguration(), sendingKey: key, receivingKey: key)
    }

    static func transport() throws -> CallTransport {
        CallTransport(rtp: try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0)))
    }

    @Test func aBareFulfilOfStartingTranslationIsRefusedAndTheTranslatorIsInstalled() throws {
        let harness = try Self.engineHarness()
        defer { harness.engine?.shutdown() }
        let call = try harness.incoming()
        let media = try Self.media()
        try harness.provider.addMedia(media, transport: Self.transport(), to: call)
        try harness.request(AnswerCallAction(call: call))

        // The iOS delegate's shape: `action.fulfill()`.
        try harness.request(SetTranslatingCallAction(call: call, translating: true, localLanguage: "en", remoteLanguage: "de"))
        let start = try #require(harness.delegate.pending.first as? SetTranslatingCallAction)
        #expect(throws: ActionError.translatorRequired) { try start.fulfill() }
        #expect(start.state == .pending, "still the app's to fulfil with a translator or fail")
        #expect(harness.call(call)?.isTranslating == false && media.translationEngine == nil)

        let translator = ToneTranslationEngine()
        try start.fulfill(using: translator)
        harness.delegate.settle()
        #expect(start.state == .fulfilled)
        #expect(harness.call(call)?.isTranslating == true && media.translationEngine === translator)

        // Stopping needs no translator.
        try harness.request(SetTranslatingCallAction(call: call, translating: false))
        let stop = try #require(harness.delegate.pending.first as? SetTranslatingCallAction)
        try stop.fulfill()
        harness.delegate.settle()
        #expect(harness.call(call)?.isTranslating == false && media.translationEngine == nil)
    }

    @Test func mediaAddedAfterTheFulfilmentTakesTheTranslator() throws {
        let harness = try Self.engineHarness()
        defer { harness.engine?.shutdown() }
        let call = try harness.incoming()
        try harness.request(SetTranslatingCallAction(call: call, translating: true))
        let start = try #require(harness.delegate.pending.first as? SetTranslatingCallAction)
        let translator = ToneTranslationEngine()
        try start.fulfill(using: translator)
        #expect(harness.call(call)?.isTranslating == true)

        let media = try Self.media()
        try harness.provider.addMedia(media, transport: Self.transport(), to: call)
        #expect(media.translationEngine === translator, "the call said it translates: its media does")
    }

    @Test func mediaThatRefusesTheTranslatorLeavesTheActionPending() throws {
        let harness = try Self.engineHarness()
        defer { harness.engine?.shutdown() }
        let call = try harness.incoming()
        let media = try Self.media()
        try harness.provider.addMedia(media, transport: Self.transport(), to: call)
        for _ in 0..<CallMedia.maximumTranslators { try media.translate(with: ToneTranslationEngine()) }
        media.stopTranslating()

        try harness.request(SetTranslatingCallAction(call: call, translating: true))
        let start = try #require(harness.delegate.pending.first as? SetTranslatingCallAction)
        #expect(throws: ActionError.translatorRefused(.tooManyTranslators(capacity: CallMedia.maximumTranslators))) {
            try start.fulfill(using: ToneTranslationEngine())
        }
        #expect(start.state == .pending && harness.call(call)?.isTranslating == false)
        try start.fail()
        #expect(start.state == .failed)
    }
}
