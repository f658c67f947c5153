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

/// The README's embedding example runs as written: answering starts the engine, ending stops
/// it; and the README shows exactly the compiled text.
@Suite struct EmbeddingExampleTests {
    @Test func theSoftphoneAnswersAndHangsUp() throws {
        let phone = try Softphone(device: AudioDeviceOpener(name: "null", backend: VirtualAudioDevice.null()))
        defer { phone.engine.shutdown() }
        // A push keyed the app's own way arrives: the call is reported before the completion.
        phone.pushes.deliver(jsonPayload: Data(#"{"sessionId": "s1", "callerNumber": "+442079460000"}"#.utf8))
        #expect(Self.eventually { phone.provider.liveCalls.count == 1 }, "the push rang a call")
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

    @Test func theReadmeShowsTheCompiledExample() throws {
        let source = try String(contentsOf: VectorFiles.url("../Tests/CallsTests/EmbeddingExample.swift"), encoding: .utf8)
        let readme = try String(contentsOf: VectorFiles.url("../README.md"), encoding: .utf8)
        let example = try #require(Self.between("// embedding-example:begin\n", "// embedding-example:end", in: source))
        let shown = try #require(Self.between("<!-- embedding-example:begin -->\n```swift\n", "```\n<!-- embedding-example:end -->", in: readme))
        #expect(shown == example, "README.md's embedding example differs from Tests/CallsTests/EmbeddingExample.swift")
    }

    static func between(_ start: String, _ end: String, in text: String) -> String? {
        guard let from = text.range(of: start), let to = text.range(of: end, range: from.upperBound..<text.endIndex) else { return nil }
        return String(text[from.upperBound..<to.lowerBound])
    }

    /// Polls `condition` for up to 5 s (the delegate runs on the softphone's own queue).
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
