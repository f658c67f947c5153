// SPDX-License-Identifier: Apache-2.0
import Foundation
import JitterBuffer
import Testing
@testable import voicecall

/// `--learnt-delays FILE`: what the last call on a path learnt, kept as JSON between runs of
/// `voicecall receive` and `call`. The file is outside input: checked before any call uses it.
@Suite struct LearntDelaysFileTests {
    static let learnt = LearntDelays(bucketMs: 2, weights: [0.5, 0, 0.25, 0.25], lossWasRecent: true)

    @Test func aMissingFileIsNothingLearntAndAWrittenOneReadsBack() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("path.json").path
        #expect(try LearntDelaysFile.read(path) == nil)
        try LearntDelaysFile.write(nil, to: path)  // a call that played nothing keeps the file as it was
        #expect(!FileManager.default.fileExists(atPath: path))
        try LearntDelaysFile.write(Self.learnt, to: path)
        #expect(try LearntDelaysFile.read(path) == Self.learnt)
    }

    @Test(arguments: [
        "not json",
        #"{"bucketMs": 2, "weights": [1]}"#,  // a field missing
        #"{"bucketMs": 10, "weights": [1], "lossWasRecent": false}"#,  // not the estimator's buckets
        #"{"bucketMs": 2, "weights": [], "lossWasRecent": false}"#,
        #"{"bucketMs": 2, "weights": [0.5, -0.5, 1], "lossWasRecent": false}"#,
        #"{"bucketMs": 2, "weights": [0, 0], "lossWasRecent": false}"#,
        #"{"bucketMs": 2, "weights": [1e308, 1e308], "lossWasRecent": false}"#,  // a sum that is not finite
    ])
    func aFileNoCallCanStartFromIsRefusedByName(text: String) throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("path.json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect {
            try LearntDelaysFile.read(path)
        } throws: { error in
            guard case let .badDescription(message) = error as? RealCallFailure else { return false }
            return message.hasPrefix("--learnt-delays \(path):")
        }
    }

    @Test func anOversizedFileIsRefusedBeforeDecoding() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("huge.json").path
        try Data(repeating: 0x20, count: LearntDelaysFile.maximumBytes + 1).write(to: URL(fileURLWithPath: path))
        #expect {
            try LearntDelaysFile.read(path)
        } throws: { error in
            guard case let .file(message) = error as? RealCallFailure else { return false }
            return message.contains("larger than")
        }
    }

    @Test func receiveAndCallTakeTheOptionAndSendDoesNot() throws {
        let key = "AES_CM_128_HMAC_SHA1_80 inline:" + RealCallSupport.base64(RealCallSupport.keyAndSalt(seed: 3))
        var receive = CommandArguments(["--listen", "127.0.0.1:0", "--crypto", key, "--output", "o.wav", "--learnt-delays", "p.json"])
        #expect(try RealCallOptions.parse(.receive, &receive).learntDelays == "p.json")
        var call = CommandArguments(["--listen", "127.0.0.1:0", "--input", "i.wav", "--output", "o.wav", "--learnt-delays", "p.json"])
        #expect(try RealCallOptions.parse(.call, &call).learntDelays == "p.json")
        var send = CommandArguments(["--to", "127.0.0.1:5004", "--crypto", key, "--input", "i.wav", "--learnt-delays", "p.json"])
        #expect(throws: RealCallFailure.self) { try RealCallOptions.parse(.send, &send) }
    }

    /// The configuration a call is made with starts its jitter buffer from the file.
    @Test func theCallsConfigurationCarriesWhatTheFileHolds() throws {
        let directory = try RealCallSupport.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("path.json").path
        try LearntDelaysFile.write(Self.learnt, to: path)
        var options = RealCallOptions(role: .receive)
        #expect(try RealCallSetup.configuration(options, profile: nil).jitterBuffer.learntDelays == nil)
        options.learntDelays = path
        #expect(try RealCallSetup.configuration(options, profile: nil).jitterBuffer.learntDelays == Self.learnt)
    }
}
