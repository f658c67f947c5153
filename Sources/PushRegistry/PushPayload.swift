// SPDX-License-Identifier: Apache-2.0
import Foundation

/// A push as the app's server sent it (PKPushPayload): the JSON object, keyed however the
/// app's own server keys it (`dictionaryPayload["callerNumber"] as? String`), and the typed
/// `VoIPPushPayload` when the server used this package's keys.
///
/// Bounded as `PushPayloadParser` bounds every push: at most `PushPayloadParser.maximumSize`
/// bytes, nested no deeper than the JSON reader allows; only a JSON object becomes a
/// `PushPayload` (anything else is handled by the registry as an unusable push).
public struct PushPayload: @unchecked Sendable {
    // @unchecked: `dictionaryPayload` holds only what the JSON reader makes (strings, numbers,
    // booleans, null, arrays and dictionaries of them), built once here and never mutated:
    // immutable values, safe to read from any thread.

    /// The kind of push (PushKit's `type`): always `.voIP` here.
    public let type: PushType
    /// The payload's JSON object (PushKit's `dictionaryPayload`): keys are strings, values
    /// what JSONSerialization reads (`String`, `NSNumber` for numbers and booleans, `NSNull`,
    /// arrays, nested dictionaries).
    public let dictionaryPayload: [AnyHashable: Any]
    /// The bytes the push carried.
    public let jsonData: Data

    /// The payload in `jsonData` when it is a JSON object of at most
    /// `PushPayloadParser.maximumSize` bytes.
    /// - Throws: `tooLarge`, `notJSON`, `notAnObject`.
    public init(jsonData: Data, type: PushType = .voIP) throws(PushPayloadError) {
        let maximum = PushPayloadParser.maximumSize
        guard jsonData.count <= maximum else { throw .tooLarge(size: jsonData.count, maximum: maximum) }
        guard let any = try? JSONSerialization.jsonObject(with: jsonData, options: [.fragmentsAllowed]) else { throw .notJSON }
        guard let object = any as? [String: Any] else { throw .notAnObject }
        self.type = type
        self.jsonData = jsonData
        var dictionary: [AnyHashable: Any] = [:]
        for (key, value) in object { dictionary[AnyHashable(key)] = value }
        dictionaryPayload = dictionary
    }

    /// The typed payload (this package's `callId`/`handle` keys), the optional decoder: nil
    /// when the server keys its pushes its own way.
    public var voipPayload: VoIPPushPayload? { try? PushPayloadParser.parse(jsonData) }

    /// The typed payload, or why the JSON is not one.
    /// - Throws: the first problem with the call id or the handle.
    public func decodeVoIPPayload() throws(PushPayloadError) -> VoIPPushPayload {
        try PushPayloadParser.parse(jsonData)
    }
}
