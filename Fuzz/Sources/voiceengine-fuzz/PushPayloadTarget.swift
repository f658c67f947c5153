// SPDX-License-Identifier: Apache-2.0
import Foundation
import PushRegistry

/// `PushPayloadParser` over any bytes: `read` and `parse` agree (a usable payload from one is
/// the other's result, a refusal from one is a refusal from the other), and a usable payload
/// written back as JSON reads back as the same call.
enum PushPayloadTarget {
    static let target = FuzzTarget(name: "push-payload", run: run, seeds: seeds)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let data = Data(bytes)
        let result = PushPayloadParser.read(data)
        let parsed = Result { () throws(PushPayloadError) in try PushPayloadParser.parse(data) }
        switch (result.payload, parsed) {
        case let (payload?, .success(other)):
            check(payload == other, "read and parse disagree on a usable payload")
            let again = PushPayloadParser.read(payload.jsonData).payload
            check(again?.callUUID == payload.callUUID && again?.handle == payload.handle
                  && again?.isCancelled == payload.isCancelled && again?.callerName == payload.callerName,
                  "a payload written as JSON does not read back as the same call")
        case (nil, .failure):
            check(result.fatalProblem != nil, "an unusable payload without a reason")
        default:
            check(false, "read and parse disagree on whether the payload is usable")
        }
    }

    static func seeds() throws -> [[UInt8]] {
        [
            #"{"callId":"6F9619FF-8B86-D011-B42D-00C04FC964FF","handle":"+442079460000","handleType":"phoneNumber","callerName":"Alice","sentAt":1796000000,"expiresAt":1796000030}"#,
            #"{"callId":"6F9619FF-8B86-D011-B42D-00C04FC964FF","handle":"alice@example.com","handleType":"emailAddress","cancelled":true}"#,
            #"{"callId":"not-a-uuid","handle":""}"#,
            #"{"handle":"1234","video":true,"sentAt":"yesterday"}"#,
        ].map { Array($0.utf8) }
    }
}
