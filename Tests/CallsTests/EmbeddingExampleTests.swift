// SPDX-License-Identifier: Apache-2.0
import AudioDevices
import AudioDevicesTesting
import Calls
import Foundation
import MediaEngine
import PushRegistry
import SRTP
import SessionDescription
import Testing
import TestSupport
import Transport

/// The embedding example (docs/embedding.md) and the README's quick start run as written:
/// answering starts the engine, ending stops it, an offer becomes a call that receives; and the
/// pages show exactly the compiled text.
@Suite struct EmbeddingExampleTests {
    @Test func theSoftphoneAnswersAndHangsUp() throws {
        let phone = try Softphone(device: AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null()))
        defer { phone.engine.shutdown() }
        // A push keyed the app's own way arrives: the call is reported before the completion.
        // The call rings on the report; the completion comes after it, through the softphone's
        // queue, and the registry judges the push then: waited for, not raced.
        phone.pushes.deliver(jsonPayload: Data(#"{"sessionId": "s1", "callerNumber": "+442079460000"}"#.utf8))
        #expect(Self.eventually { phone.provider.liveCalls.count == 1 }, "the push rang a call")
        #expect(Self.eventually { phone.pushes.statistics.reportedInTime + phone.pushes.statistics.violations >= 1 }, "the push was judged")
        #expect(phone.pushes.violations.isEmpty && phone.pushes.statistics.reportedInTime == 1, "reported before completion()")
        let call = try #require(phone.provider.liveCalls.first?.uuid)
        #expect(!phone.engine.isRunning, "ringing: no audio yet")
        // The user answers before the signalling has the media: the answer waits for it.
        try phone.controller.requestTransaction(with: AnswerCallAction(call: call))
        phone.queue.sync {}
        #expect(!phone.engine.isRunning && !phone.provider.isCallAudioActive, "no audio before the media is ready")
        // The caller's offer, as its SIP stack wrote it; the answer goes back to it.
        let callerKeys = LocalAudio.supportedSuites.map { SRTPKeyingMaterial.random(profile: $0) }
        let offer = try SessionDescription.offer(from: LocalAudio(address: "127.0.0.1", port: 9), keys: callerKeys)
        let answer = try phone.mediaReady(session: "s1", offer: offer.formatted)
        let settled = try SessionDescription(parsing: answer).negotiated(offer: offer)
        #expect(settled.remoteAddress == "127.0.0.1" && settled.direction == .sendReceive, "the caller can use the answer")
        #expect(Self.eventually { phone.engine.isRunning }, "media ready: answered, the session started the engine")
        #expect(phone.provider.audioSession.mode == .voiceChat)
        try phone.controller.requestTransaction(with: EndCallAction(call: call))
        #expect(Self.eventually { !phone.engine.isRunning && phone.provider.liveCalls.isEmpty }, "ended: audio stopped, no call left")
    }

    @Test func theDocsShowTheCompiledExample() throws {
        let source = try String(contentsOf: VectorFiles.url("../Tests/CallsTests/EmbeddingExample.swift"), encoding: .utf8)
        let page = try String(contentsOf: VectorFiles.url("../docs/embedding.md"), encoding: .utf8)
        let example = try #require(Self.between("// embedding-example:begin\n", "// embedding-example:end", in: source))
        let shown = try #require(Self.between("<!-- embedding-example:begin -->\n```swift\n", "```\n<!-- embedding-example:end -->", in: page))
        #expect(shown == example, "docs/embedding.md's embedding example differs from Tests/CallsTests/EmbeddingExample.swift")
    }

    /// The README's quick start as written: an offer in, our answer out, and the caller's
    /// packets reach the call in a running engine.
    @Test func theQuickStartAnswersAnOfferAndReceivesTheCaller() throws {
        var configuration = VoiceEngineConfiguration()
        configuration.device = AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null())
        let engine = try VoiceEngine(configuration: configuration)
        defer { engine.shutdown() }
        // The caller: a socket and keys of its own, an offer as its SIP stack writes it.
        let callerSocket = try UDPSocket(bindingTo: UDPEndpoint(host: "127.0.0.1", port: 0))
        let keys = LocalAudio.supportedSuites.map { SRTPKeyingMaterial.random(profile: $0) }
        let offer = try SessionDescription.offer(from: LocalAudio(address: "127.0.0.1", port: callerSocket.localEndpoint.port), keys: keys)
        let (answer, call) = try answerCall(offer: offer.formatted, on: engine, address: "127.0.0.1")
        let settled = try SessionDescription(parsing: answer).negotiated(offer: offer)
        let caller = try settled.makeCallMedia()
        try callerSocket.setRemote(UDPEndpoint(host: settled.remoteAddress, port: settled.remotePort))
        let tone = (0..<caller.samplesPerFrame).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        for frame in 0..<50 {
            tone.withUnsafeBufferPointer { caller.send(microphone: $0) }
            caller.sendDatagrams(nowMs: Double(frame) * 20) { _ = try? callerSocket.send($0) }
        }
        #expect(engine.isRunning)
        #expect(Self.eventually { (engine.statistics(of: call)?.inbound.packetsReceived ?? 0) >= 40 },
                "the engine received \(engine.statistics(of: call)?.inbound.packetsReceived ?? 0) of the caller's 50 packets")
        #expect(engine.statistics(of: call)?.transport.srtp.authFailures == 0, "the keys crossed")
    }

    @Test func theReadmeShowsTheCompiledQuickStart() throws {
        let source = try String(contentsOf: VectorFiles.url("../Tests/CallsTests/QuickStart.swift"), encoding: .utf8)
        let readme = try String(contentsOf: VectorFiles.url("../README.md"), encoding: .utf8)
        let example = try #require(Self.between("// quick-start:begin\n", "// quick-start:end", in: source))
        let shown = try #require(Self.between("<!-- quick-start:begin -->\n```swift\n", "```\n<!-- quick-start:end -->", in: readme))
        #expect(shown == example, "README.md's quick start differs from Tests/CallsTests/QuickStart.swift")
    }

    static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex) else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }

    /// Polls `condition` until it holds, for up to 60 s (the delegate runs on the softphone's
    /// own queue; the bound is for a hang, not a time a loaded machine must beat).
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }
}
