// SPDX-License-Identifier: Apache-2.0
import Calls
import Foundation
import PushRegistry
import Testing
import TestSupport

/// The payload parser: typed errors for each kind of bad field, and no trap on random or
/// mutated input (seeded, so a failure repeats).
@Suite(.timeLimit(.minutes(1))) struct PayloadParserTests {
    static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    static let valid = #"{"callId":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","handle":"+4930123456","handleType":"phoneNumber","callerName":"Alice","sentAt":1764571200.25,"expiresAt":1764571230,"cancelled":false,"video":true}"#

    @Test func aCompletePayloadParses() throws {
        let payload = try PushPayloadParser.parse(Data(Self.valid.utf8))
        #expect(payload.callUUID == Self.uuid)
        #expect(payload.handle == CallHandle(kind: .phoneNumber, value: "+4930123456"))
        #expect(payload.callerName == "Alice" && payload.hasVideo && !payload.isCancelled)
        #expect(payload.sentAt == Date(timeIntervalSince1970: 1_764_571_200.25))
        #expect(payload.expiresAt == Date(timeIntervalSince1970: 1_764_571_230))
        #expect(payload.ignoredFields.isEmpty)
        #expect(try PushPayloadParser.parse(payload.jsonData) == payload, "jsonData round-trips")
    }

    @Test(arguments: [
        (#"{"handle":"x"}"#, PushPayloadError.missingField("callId")),
        (#"{"callId":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F"}"#, .missingField("handle")),
        (#"{"callId":"not-a-uuid","handle":"x"}"#, .invalidValue(field: "callId", reason: "not a UUID")),
        (#"{"callId":7,"handle":"x"}"#, .wrongType(field: "callId", expected: "a string")),
        (#"{"callId":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","handle":"   "}"#, .invalidValue(field: "handle", reason: "empty")),
        (#"{"callId":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","handle":["x"]}"#, .wrongType(field: "handle", expected: "a string")),
        ("[1,2]", .notAnObject),
        ("\"text\"", .notAnObject),
        ("{\"callId\":", .notJSON),
        ("", .notJSON),
        (#"{"a":1e400}"#, .notJSON),
    ])
    func unusablePayloadsThrowTypedErrors(json: String, expected: PushPayloadError) {
        #expect(throws: expected) { try PushPayloadParser.parse(Data(json.utf8)) }
    }

    @Test func oversizedPayloadsAreRefusedBeforeParsing() {
        let big = Data(#"{"callId":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","handle":"x","pad":""#.utf8) + Data(repeating: 0x61, count: 6_000) + Data(#""}"#.utf8)
        #expect(throws: PushPayloadError.tooLarge(size: big.count, maximum: 5_120)) { try PushPayloadParser.parse(big) }
        let long = String(repeating: "a", count: 1_025)
        #expect(throws: PushPayloadError.invalidValue(field: "handle", reason: "longer than 1024 characters")) {
            try PushPayloadParser.parse(Data(#"{"callId":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","handle":"\#(long)"}"#.utf8))
        }
    }

    @Test func badOptionalFieldsAreIgnoredAndListed() throws {
        let json = #"{"callId":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","handle":"x","handleType":"fax","sentAt":"yesterday","expiresAt":-5,"cancelled":1,"video":"no","callerName":""}"#
        let payload = try PushPayloadParser.parse(Data(json.utf8))
        #expect(payload.handle.kind == .generic && payload.sentAt == nil && payload.expiresAt == nil && !payload.isCancelled && !payload.hasVideo)
        #expect(payload.callerName == nil)
        #expect(payload.ignoredFields == [
            .invalidValue(field: "handleType", reason: "unknown handle type"),
            .invalidValue(field: "callerName", reason: "empty"),
            .wrongType(field: "sentAt", expected: "a number"),
            .invalidValue(field: "expiresAt", reason: "not a time between 1970 and 2200"),
            .wrongType(field: "cancelled", expected: "a boolean"),
            .wrongType(field: "video", expected: "a boolean"),
        ])
        // A boolean is not a time, and a huge number is out of range.
        let times = PushPayloadParser.read(Data(#"{"sentAt":true,"expiresAt":1e300}"#.utf8))
        #expect(times.fields.sentAt == nil && times.fields.expiresAt == nil)
        #expect(times.problems.contains(.wrongType(field: "sentAt", expected: "a number")))
        #expect(times.problems.contains(.invalidValue(field: "expiresAt", reason: "not a time between 1970 and 2200")))
    }

    /// Random bytes, valid payloads with bytes flipped, inserted or cut, fields replaced by
    /// values of every JSON type, deep nesting: the parser returns for every one, and what it
    /// returns is consistent.
    @Test func noInputTraps() throws {
        var generator = SeededGenerator(seed: 0x5055_5348)
        let base = Array(Self.valid.utf8)
        let keys = ["callId", "handle", "handleType", "callerName", "sentAt", "expiresAt", "cancelled", "video"]
        let values = ["null", "true", "false", "0", "-1", "1e308", "-1e308", "1e400", "NaN", "Infinity", "\"\"", "\"\\u0000\"",
                      "\"\\ud800\"", "[]", "{}", "[[[[[[]]]]]]", "\"\(String(repeating: "é", count: 2_000))\"", "123456789012345678901234567890",
                      "\"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"", "\"+1 (800) 555-1234\"", "7258118400.5"]
        var parsed = 0
        var counts: [String: Int] = [:]
        for round in 0..<20_000 {
            let input: [UInt8]
            switch round % 5 {
            case 0:
                input = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            case 1:
                var bytes = base
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    let at = Int.random(in: 0..<bytes.count, using: &generator)
                    bytes[at] = UInt8.random(in: 0...255, using: &generator)
                }
                input = bytes
            case 2:
                var bytes = base
                let at = Int.random(in: 0...bytes.count, using: &generator)
                if Bool.random(using: &generator) {
                    bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...20, using: &generator)))
                } else {
                    bytes.insert(contentsOf: Array("{[\",:}]\\".utf8).shuffled(using: &generator).prefix(3), at: at)
                }
                input = bytes
            case 3:
                var object: [String] = []
                for key in keys where Bool.random(using: &generator) {
                    object.append("\"\(key)\":\(values.randomElement(using: &generator)!)")
                }
                input = Array("{\(object.joined(separator: ","))}".utf8)
            default:
                let depth = Int.random(in: 1...6_000, using: &generator)
                input = Array(String(repeating: "[", count: depth).utf8) + Array(String(repeating: "]", count: depth).utf8)
            }
            let result = PushPayloadParser.read(Data(input))
            // Consistency: a payload exactly when nothing fatal; the payload agrees with the fields.
            #expect((result.payload == nil) == (result.fatalProblem != nil))
            if let payload = result.payload {
                parsed += 1
                #expect(payload.callUUID == result.fields.callUUID && payload.handle == result.fields.handle)
                #expect(payload.handle.value.count <= PushPayloadParser.maximumStringLength)
                #expect(payload.sentAt.map { $0.timeIntervalSince1970.isFinite } ?? true)
            }
            if let fatal = result.fatalProblem { counts[String(describing: fatal).prefix(12).description, default: 0] += 1 }
            if input.count > PushPayloadParser.maximumSize { #expect(result.fatalProblem == .tooLarge(size: input.count, maximum: 5_120)) }
        }
        #expect(parsed > 500, "the mutations also produce usable payloads (\(parsed))")
        #expect(counts.count >= 5, "and many kinds of failure: \(counts)")
    }

    /// The same inputs through a registry: every push lands in exactly one bucket and the
    /// provider is never left with a ringing call from an unusable or cancelled one.
    @Test func randomPushesThroughTheRegistry() throws {
        let harness = try PushHarness(configuration: PushRegistryConfiguration(maximumViolations: 1_000), behaviour: .reportNow)
        var generator = SeededGenerator(seed: 42)
        let base = Array(Self.valid.utf8)
        for _ in 0..<300 {
            var bytes = base
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0x20...0x7E, using: &generator)
            }
            harness.pushRaw(Data(bytes))
            for call in harness.provider.liveCalls { harness.provider.reportCall(with: call.uuid, endedAt: nil, reason: .remoteEnded) }
        }
        let s = harness.registry.statistics
        #expect(s.received == 300)
        #expect(s.delivered + s.expired + s.unusable + s.cancelled + s.notRegistered + s.droppedWhileStopped == 300)
        #expect(s.delivered > 0 && s.unusable > 0)
        #expect(s.violations == 0)
    }
}
