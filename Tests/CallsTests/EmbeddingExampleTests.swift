import AudioDevices
import AudioDevicesTesting
import Calls
import Foundation
import MediaEngine
import SRTP
import Testing
import TestSupport
import Transport

/// The README's embedding example runs as written: answering starts the engine, ending stops
/// it; and the README shows exactly the compiled text.
@Suite struct EmbeddingExampleTests {
    @Test func theSoftphoneAnswersAndHangsUp() throws {
        let phone = try Softphone(device: AudioDeviceOpener(name: "null", calls: VirtualAudioDevice.null()))
        defer { phone.engine.shutdown() }
        let key = SRTPKeyingMaterial.random(profile: .aesCM128HmacSha1_80)
        let call = UUID()
        try phone.incoming(call, from: "+442079460000", peer: UDPEndpoint(host: "127.0.0.1", port: 9), peerKey: key, myKey: key)
        #expect(!phone.engine.isRunning, "ringing: no audio yet")
        try phone.controller.requestTransaction(with: AnswerCallAction(call: call))
        #expect(Self.eventually { phone.engine.isRunning }, "answered: the session started the engine")
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
