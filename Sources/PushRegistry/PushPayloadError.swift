// SPDX-License-Identifier: Apache-2.0
/// Why a VoIP push's JSON payload, or one of its fields, cannot be used. The parser never
/// traps: every input ends in a payload, these errors, or both.
public enum PushPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The payload is larger than `PushPayloadParser.maximumSize` (PushKit's 5 KB).
    case tooLarge(size: Int, maximum: Int)
    /// The bytes are not JSON (or nested deeper than the JSON reader allows).
    case notJSON
    /// The JSON is not an object.
    case notAnObject
    /// A required field is absent.
    case missingField(String)
    /// A field has the wrong JSON type.
    case wrongType(field: String, expected: String)
    /// A field has the right type and an unusable value (an invalid UUID, an empty or
    /// over-long string, a time that is not finite or out of range, an unknown handle type).
    case invalidValue(field: String, reason: String)

    public var description: String {
        switch self {
        case let .tooLarge(size, maximum): "payload of \(size) bytes is over \(maximum)"
        case .notJSON: "payload is not JSON"
        case .notAnObject: "payload is not a JSON object"
        case let .missingField(field): "field \(field) is missing"
        case let .wrongType(field, expected): "field \(field) is not \(expected)"
        case let .invalidValue(field, reason): "field \(field): \(reason)"
        }
    }
}
